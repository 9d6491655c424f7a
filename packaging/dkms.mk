# The Makefile of xfab's DKMS source tree (/usr/src/xfab-VERSION): dkms
# runs `make KDIR=<headers>` in a copy of that tree, for each kernel.
KDIR ?= /lib/modules/$(shell uname -r)/build
DIRS := netfront netback blkfront blkback window

all:
	@for d in $(DIRS); do \
		$(MAKE) -C $(KDIR) M=$(CURDIR)/$$d modules || exit 1; \
	done

clean:
	@for d in $(DIRS); do \
		$(MAKE) -C $(KDIR) M=$(CURDIR)/$$d clean; \
	done

.PHONY: all clean
