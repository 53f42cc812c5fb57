// SPDX-License-Identifier: MIT
/*
 * The parts of the model runtime instance API not built yet: models built
 * from bound streams (aclmdlRIBuildBegin ...), labels, stream switch and
 * activation and condition tasks. Each
 * returns ACL_ERROR_RT_FEATURE_NOT_SUPPORT with a message, so that
 * programs written for the vendor's runtime build and learn what is
 * missing. The card's programs have the control commands they need
 * (JUMP, BRANCH, SWITCH, ACTIVATE, CALL, END, SET_CALL): see
 * docs/capture.md for how they map.
 */
#include "capture.h"

#define NOT_YET(what)								\
	ACL_FAIL(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, "%s is not supported by this "	\
		 "runtime yet (issue 27; docs/capture.md)", what)

#define BUILD	"building a model runtime instance from bound streams"
#define LABELS	"labels and label switches in models"
#define SWITCH	"stream switch and activation in models"
#define COND	"condition tasks in models"

ACL_EXPORT aclError aclmdlRIBuildBegin(aclmdlRI *modelRI, uint32_t flag)
{
	(void)modelRI, (void)flag;
	return NOT_YET(BUILD);
}

ACL_EXPORT aclError aclmdlRIBindStream(aclmdlRI modelRI, aclrtStream stream, uint32_t flag)
{
	(void)modelRI, (void)stream, (void)flag;
	return NOT_YET(BUILD);
}

ACL_EXPORT aclError aclmdlRIUnbindStream(aclmdlRI modelRI, aclrtStream stream)
{
	(void)modelRI, (void)stream;
	return NOT_YET(BUILD);
}

ACL_EXPORT aclError aclmdlRIEndTask(aclmdlRI modelRI, aclrtStream stream)
{
	(void)modelRI, (void)stream;
	return NOT_YET(BUILD);
}

ACL_EXPORT aclError aclmdlRIBuildEnd(aclmdlRI modelRI, void *reserve)
{
	(void)modelRI, (void)reserve;
	return NOT_YET(BUILD);
}

ACL_EXPORT aclError aclrtCreateLabel(aclrtLabel *label)
{
	(void)label;
	return NOT_YET(LABELS);
}

ACL_EXPORT aclError aclrtSetLabel(aclrtLabel label, aclrtStream stream)
{
	(void)label, (void)stream;
	return NOT_YET(LABELS);
}

ACL_EXPORT aclError aclrtDestroyLabel(aclrtLabel label)
{
	(void)label;
	return NOT_YET(LABELS);
}

ACL_EXPORT aclError aclrtCreateLabelList(aclrtLabel *labels, size_t num, aclrtLabelList *labelList)
{
	(void)labels, (void)num, (void)labelList;
	return NOT_YET(LABELS);
}

ACL_EXPORT aclError aclrtDestroyLabelList(aclrtLabelList labelList)
{
	(void)labelList;
	return NOT_YET(LABELS);
}

ACL_EXPORT aclError aclrtSwitchLabelByIndex(void *ptr, uint32_t maxValue, aclrtLabelList labelList,
					    aclrtStream stream)
{
	(void)ptr, (void)maxValue, (void)labelList, (void)stream;
	return NOT_YET(LABELS);
}

ACL_EXPORT aclError aclrtActiveStream(aclrtStream activeStream, aclrtStream stream)
{
	(void)activeStream, (void)stream;
	return NOT_YET(SWITCH);
}

ACL_EXPORT aclError aclrtSwitchStream(void *leftValue, aclrtCondition cond, void *rightValue,
				      aclrtCompareDataType dataType, aclrtStream trueStream,
				      aclrtStream falseStream, aclrtStream stream)
{
	(void)leftValue, (void)cond, (void)rightValue, (void)dataType, (void)trueStream;
	(void)falseStream, (void)stream;
	return NOT_YET(SWITCH);
}

ACL_EXPORT aclError aclmdlRICondHandleCreate(aclmdlRI modelRI, uint32_t defaultLaunchValue,
					     aclmdlRICondHandleFlag flag, aclmdlRICondHandle *handle)
{
	(void)modelRI, (void)defaultLaunchValue, (void)flag, (void)handle;
	return NOT_YET(COND);
}

ACL_EXPORT aclError aclmdlRICondHandleGetCondPtr(aclmdlRICondHandle handle, uint64_t **ptr)
{
	(void)handle, (void)ptr;
	return NOT_YET(COND);
}

ACL_EXPORT aclError aclmdlRIAddCondTask(aclmdlRICondTaskParams params, aclrtStream stream,
					uint32_t flags)
{
	(void)params, (void)stream, (void)flags;
	return NOT_YET(COND);
}
