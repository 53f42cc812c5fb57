# HCCL across hosts: the UCX link (hccl/src/link_ucx.c) and libhccl's
# collectives, run in two guests by tests/hccl-hosts/run (make check) and
# make check-hosts.
UCX_CFLAGS	:= $(shell pkg-config --cflags ucx 2>/dev/null)
UCX_LIBS	:= $(shell pkg-config --libs ucx 2>/dev/null || echo -lucp -lucs)
UCX_LINK_TEST	:= $(BUILD)/tests/hccl-hosts/ucx_link_test
HCCL_COLL_TEST	:= $(BUILD)/tests/hccl-hosts/coll_test
HCCL_FAIL_TEST	:= $(BUILD)/tests/hccl-hosts/fail_test
HCCL_HOSTS_HDRS	:= tests/hccl-hosts/rank_net.h tests/hccl-hosts/rank_tap.h hccl/src/link.h hccl/src/link_ucx.h \
		   hccl/include/hccl/hccl_types.h tests/hccl/hccl_values.h

tests: $(UCX_LINK_TEST) $(HCCL_COLL_TEST) $(HCCL_FAIL_TEST)

$(UCX_LINK_TEST): tests/hccl-hosts/ucx_link_test.c hccl/src/link_ucx.c $(HCCL_HOSTS_HDRS) \
		$(ACL_HDRS) $(ACL_LIB) $(ACL_LINKS) | deps
	@mkdir -p $(@D)
	$(CC) $(USER_CFLAGS) -Ihccl/include $(UCX_CFLAGS) -o $@ $< hccl/src/link_ucx.c \
		$(ACL_USE) $(UCX_LIBS)

$(HCCL_COLL_TEST) $(HCCL_FAIL_TEST): $(BUILD)/tests/hccl-hosts/%: tests/hccl-hosts/%.c \
		$(HCCL_HOSTS_HDRS) $(HCCL_HDRS) $(HCCL_LIB) $(ACL_HDRS) $(ACL_LIB) $(ACL_LINKS) | deps
	@mkdir -p $(@D)
	$(CC) $(USER_CFLAGS) -I$(HCCL_INC) -o $@ $< $(ACL_USE) -lhccl

# The longer run: 4 ranks, 2 guests x 2 cards, and sizes of a few MiB
# (make check runs 2 x 1 up to 1 MiB).
.PHONY: check-hosts
check-hosts: all
	tests/hccl-hosts/run --cards 2 --large
