# The emulated card, build/npu-card: a host process QEMU attaches as an
# ivshmem-doorbell PCI device (tools/vm-run starts one per card).  It
# computes with its operator library (card/oplib/oplib.mk).
#
# build/npu-card-san is the card again, built with AddressSanitizer and
# UndefinedBehaviorSanitizer, for make check to run the card's tests
# against: a stray access stops the card at the line that made it, not some
# runs later when it lands badly.

include card/oplib/oplib.mk

CARD_SRCS	:= $(wildcard card/*.c)
CARD_HDRS	:= $(wildcard card/*.h) $(OPLIB_HDRS)
CARD_CFLAGS	:= -Icard $(OPLIB_CFLAGS)

$(BUILD)/npu-card: $(CARD_SRCS) $(CARD_HDRS) $(OPLIB) | deps
	@mkdir -p $(@D)
	$(CC) $(USER_CFLAGS) $(CARD_CFLAGS) -o $@ $(CARD_SRCS) $(OPLIB) $(OPLIB_LIBS)

$(BUILD)/npu-card-san: $(CARD_SRCS) $(CARD_HDRS) $(OPLIB_SAN) | deps
	@mkdir -p $(@D)
	$(CC) $(USER_CFLAGS) $(SAN_CFLAGS) $(CARD_CFLAGS) -o $@ $(CARD_SRCS) $(OPLIB_SAN) $(OPLIB_LIBS)
