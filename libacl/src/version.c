// SPDX-License-Identifier: MIT
/*
 * Versions of the installed parts (aclsysGetVersionStr/Num), whether a
 * chip name is one this runtime runs on (aclrtCheckArchCompatibility),
 * and which optional device features the card has (aclrtGetDeviceCapability).
 *
 * The parts, by the vendor's package names: "cann" and "runtime" are this
 * library (its API version, aclrtGetVersion's numbers); "driver" is the
 * npu kernel module of the first card (its DRM version); "firmware" is
 * the card's interface (DRM_NPU_PARAM_VERSION). A version number is
 * major * 1000000 + minor * 1000 + patch, so later versions compare greater.
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <xf86drm.h>

#include "acl_internal.h"

struct part_version {
	int major, minor, patch;
};

/* The version of the driver or the card, read from the first card. */
static aclError card_version(const char *fn, bool firmware, struct part_version *v)
{
	struct acl_device *d;
	drmVersionPtr dv;
	uint64_t card;
	int fd, ret;

	acl_enumerate_devices(false);
	d = acl_device_get(0);
	if (!d)
		return acl_fail(fn, ACL_ERROR_RT_NO_DEVICE, "no npu card: no %s version to report",
				firmware ? "firmware" : "driver");
	fd = drv_open(d->path);
	if (fd < 0)
		return acl_fail(fn, ACL_ERROR_RT_NO_DEVICE, "cannot open %s", d->path);
	if (firmware) {
		ret = drv_get_param(fd, DRM_NPU_PARAM_VERSION, &card);
		*v = (struct part_version){ (int)(card >> 16), (int)(card & 0xffff), 0 };
	} else {
		dv = drmGetVersion(fd);
		ret = dv ? 0 : -1;
		if (dv) {
			*v = (struct part_version){ dv->version_major, dv->version_minor,
						    dv->version_patchlevel };
			drmFreeVersion(dv);
		}
	}
	close(fd);
	if (ret)
		return acl_fail(fn, ACL_ERROR_RT_DRV_INTERNAL_ERROR, "cannot read the %s version of %s",
				firmware ? "firmware" : "driver", d->path);
	return ACL_SUCCESS;
}

static aclError part_version(const char *fn, const char *pkg, struct part_version *v)
{
	if (!pkg)
		return acl_fail(fn, ACL_ERROR_INVALID_PARAM, "pkgName is NULL");
	if (!strcmp(pkg, "cann") || !strcmp(pkg, "runtime")) {
		*v = (struct part_version){ ACL_MAJOR_VERSION, ACL_MINOR_VERSION, ACL_PATCH_VERSION };
		return ACL_SUCCESS;
	}
	if (!strcmp(pkg, "driver") || !strcmp(pkg, "firmware"))
		return card_version(fn, !strcmp(pkg, "firmware"), v);
	return acl_fail(fn, ACL_ERROR_INVALID_PARAM, "no package named \"%.64s\" is installed "
			"(known: cann, runtime, driver, firmware)", pkg);
}

ACL_EXPORT aclError aclsysGetVersionStr(char *pkgName, char *versionStr)
{
	struct part_version v;
	aclError err;

	ACL_CHECK_NULL(versionStr);
	err = part_version(__func__, pkgName, &v);
	if (err)
		return err;
	snprintf(versionStr, ACL_PKG_VERSION_MAX_SIZE, "%d.%d.%d", v.major, v.minor, v.patch);
	return ACL_SUCCESS;
}

ACL_EXPORT aclError aclsysGetVersionNum(char *pkgName, int32_t *versionNum)
{
	struct part_version v;
	aclError err;

	ACL_CHECK_NULL(versionNum);
	err = part_version(__func__, pkgName, &v);
	if (err)
		return err;
	if (v.minor > 999 || v.patch > 999 || v.major > 2000)
		return ACL_FAIL(ACL_ERROR_RT_INTERNAL_ERROR, "version %d.%d.%d of %s does not fit "
				"a version number", v.major, v.minor, v.patch, pkgName);
	*versionNum = v.major * 1000000 + v.minor * 1000 + v.patch;
	return ACL_SUCCESS;
}

/* Code built for this chip runs here; no other chip's does. */
ACL_EXPORT aclError aclrtCheckArchCompatibility(const char *socVersion, int32_t *canCompatible)
{
	const char *mine;

	ACL_CHECK_NULL(socVersion);
	ACL_CHECK_NULL(canCompatible);
	mine = aclrtGetSocName();
	if (!mine)
		return ACL_FAIL(ACL_ERROR_RT_NO_DEVICE, "no npu card: no architecture to compare with");
	*canCompatible = !strcmp(socVersion, mine);
	return ACL_SUCCESS;
}

/*
 * Both features the vendor names are absent: the card updates no kernel
 * tasks on a task-scheduler CPU (it runs no vendor kernels), and has no
 * system memory queues.
 */
ACL_EXPORT aclError aclrtGetDeviceCapability(int32_t deviceId, aclrtDevFeatureType devFeatureType,
					     int32_t *value)
{
	ACL_CHECK_NULL(value);
	acl_enumerate_devices(false);
	if (!acl_device_get(deviceId))
		return ACL_FAIL(ACL_ERROR_RT_INVALID_DEVICEID, "device %d does not exist", deviceId);
	switch (devFeatureType) {
	case ACL_FEATURE_TSCPU_TASK_UPDATE_SUPPORT_AIC_AIV:
	case ACL_FEATURE_SYSTEM_MEMQ_EVENT_CROSS_DEV:
		*value = ACL_DEV_FEATURE_NOT_SUPPORT;
		return ACL_SUCCESS;
	default:
		return ACL_FAIL(ACL_ERROR_INVALID_PARAM, "unknown device feature %d",
				(int)devFeatureType);
	}
}

/* aclCANNPackageName's packages by the names aclsysGetVersionStr takes. */
static const char *const cann_package_names[] = {
	[ACL_PKG_NAME_CANN] = "cann",		[ACL_PKG_NAME_RUNTIME] = "runtime",
	[ACL_PKG_NAME_COMPILER] = "compiler",	[ACL_PKG_NAME_HCCL] = "hccl",
	[ACL_PKG_NAME_TOOLKIT] = "toolkit",	[ACL_PKG_NAME_OPP] = "opp",
	[ACL_PKG_NAME_OPP_KERNEL] = "opp_kernel", [ACL_PKG_NAME_DRIVER] = "driver",
};

/* A release number is not kept apart from the patch: it reads "0", as documented. */
ACL_EXPORT aclError aclsysGetCANNVersion(aclCANNPackageName name, aclCANNPackageVersion *version)
{
	struct part_version v;
	aclError err;

	ACL_CHECK_NULL(version);
	if ((unsigned)name >= sizeof(cann_package_names) / sizeof(cann_package_names[0]))
		return ACL_FAIL(ACL_ERROR_INVALID_PARAM, "unknown package %d", (int)name);
	err = part_version(__func__, cann_package_names[name], &v);
	if (err)
		return err;
	memset(version, 0, sizeof(*version));
	snprintf(version->version, sizeof(version->version), "%d.%d.%d", v.major, v.minor, v.patch);
	snprintf(version->majorVersion, sizeof(version->majorVersion), "%d", v.major);
	snprintf(version->minorVersion, sizeof(version->minorVersion), "%d", v.minor);
	snprintf(version->releaseVersion, sizeof(version->releaseVersion), "0");
	snprintf(version->patchVersion, sizeof(version->patchVersion), "%d", v.patch);
	return ACL_SUCCESS;
}
