/* transport_console.h - what the console transport (transport_console.c,
 * PLATFORM=vm) offers besides its struct mtb_transport: whether the guest
 * image can be made here, and the qemu command line, built by a pure
 * function so that its KVM form is checked where no arm64 KVM exists. */
#ifndef MTB_TRANSPORT_CONSOLE_H
#define MTB_TRANSPORT_CONSOLE_H
#include <stddef.h>
#include "lib/util.h"
#include "lib/argv.h"

/* 1 when the guest image can be made here (arm64 bash, busybox and loader,
 * readelf, cpio, gzip); 0 with why otherwise. */
int mtb_guest_image_ready(char *why, size_t n);

/* The qemu-system-aarch64 command line of a boot: KVM (-accel kvm -cpu host,
 * the host's GIC) or TCG (-cpu max,pauth-impdef=on), `cpus` and `mem_mb`
 * (0: 2 and 2048), the serial console to the file `console`, the hand-back
 * channel to `chan`, `append` the kernel command line (the guest's arguments
 * after "--"). Pure: appends to a. */
void mtb_console_qemu_argv(struct mtb_argv *a, const char *image, int cpus, int mem_mb, const char *initrd,
                           const char *console, const char *chan, const char *append, int kvm);
#endif
