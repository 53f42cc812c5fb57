# The card's operator library, liboplib.a: the card links it, and so do its
# unit test (oplib_test) and the host benchmarks that run the card's
# operators natively (oplib-bench, mdl-bench-prof).  liboplib-san.a is the
# same code under AddressSanitizer and UndefinedBehaviorSanitizer, for the
# sanitized card.

OPLIB_SRCS	:= $(wildcard card/oplib/*.c)
OPLIB_HDRS	:= $(wildcard card/oplib/*.h) driver/npu_hw.h $(DTYPES_HDRS)
OPLIB_CFLAGS	:= -Icard/oplib -Idriver $(DTYPES_CFLAGS)
OPLIB_LIBS	:= -ldnnl -lgomp -lm
# the loops that share their rows between an engine's threads, as oneDNN does
OPLIB_OMP	:= -fopenmp
OPLIB		:= $(BUILD)/card/liboplib.a
OPLIB_SAN	:= $(BUILD)/card/liboplib-san.a
SAN_CFLAGS	:= -O1 -fno-omit-frame-pointer -fsanitize=address,undefined -fno-sanitize-recover=all

$(BUILD)/card/oplib/%.o: card/oplib/%.c $(OPLIB_HDRS) | deps
	@mkdir -p $(@D)
	$(CC) $(USER_CFLAGS) $(OPLIB_OMP) $(OPLIB_CFLAGS) -c -o $@ $<

$(BUILD)/card/oplib-san/%.o: card/oplib/%.c $(OPLIB_HDRS) | deps
	@mkdir -p $(@D)
	$(CC) $(USER_CFLAGS) $(SAN_CFLAGS) $(OPLIB_OMP) $(OPLIB_CFLAGS) -c -o $@ $<

$(OPLIB): $(patsubst card/oplib/%.c,$(BUILD)/card/oplib/%.o,$(OPLIB_SRCS))
	rm -f $@ && $(AR) rcs $@ $^

$(OPLIB_SAN): $(patsubst card/oplib/%.c,$(BUILD)/card/oplib-san/%.o,$(OPLIB_SRCS))
	rm -f $@ && $(AR) rcs $@ $^

# QMATMUL's loop shares out its tiles with OpenMP, oneDNN's own threads,
# and its dequantisation is worth vectorising.
$(BUILD)/card/oplib/oplib_qmatmul.o $(BUILD)/card/oplib-san/oplib_qmatmul.o: \
	OPLIB_CFLAGS += -fopenmp -ftree-vectorize -fvect-cost-model=dynamic
