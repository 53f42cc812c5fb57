# SPDX-License-Identifier: MIT
#
# hccl-bench (tools/hccl-bench.c): libhccl's bus bandwidth next to the
# limits of the same run. make bench runs it after peer-bench in the same
# 2-card guest, then across 2 guests of one card each; make bench-hccl
# runs only it. Included by the top-level Makefile after hccl/hccl.mk.

HCCL_BENCH	:= $(BUILD)/tools/hccl-bench
# peer-bench --limit-out's host memcpy, the limit within a guest
HCCL_BENCH_LIMIT := $(BUILD)/bench/peer-limit.txt
HCCL_BENCH_GUEST := $(HCCL_BENCH) --limit $(HCCL_BENCH_LIMIT)
HCCL_BENCH_HOSTS := tools/vm-run --guests 2 --cards 1 --timeout 2400 -- tools/hccl-bench-guests

.PHONY: bench-hccl

all: $(HCCL_BENCH)

$(HCCL_BENCH): tools/hccl-bench.c tools/bench_clock.h tests/hccl-hosts/rank_net.h $(HCCL_HDRS) \
		$(HCCL_LIB) $(ACL_HDRS) $(ACL_LIB) $(ACL_LINKS) | deps
	@mkdir -p $(@D)
	$(CC) $(USER_CFLAGS) -I$(HCCL_INC) -o $@ $< $(ACL_USE) -lhccl

bench-hccl: all
	@mkdir -p $(BUILD)/bench
	@uptime
	$(PEER_BENCH) --limit-out $(HCCL_BENCH_LIMIT)
	tools/vm-run --cards 2 -- $(HCCL_BENCH_GUEST)
	@uptime
	$(HCCL_BENCH_HOSTS)
	@uptime
