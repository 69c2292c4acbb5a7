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

/* A boot of the vm platform's guest. */
struct mtb_qemu_boot {
    const char *image, *initrd; /* the kernel's Image, the guest's initramfs */
    int cpus, mem_mb;           /* 0: 2 and 2048 */
    const char *console;        /* the serial console's file */
    const char *chan;           /* the hand-back channel's file */
    const char *append;         /* the kernel command line (the guest's arguments after "--") */
    int kvm;                    /* KVM (-accel kvm -cpu host, the host's GIC), else TCG (-cpu max,pauth-impdef=on) */
};
/* The qemu-system-aarch64 command line of boot b. Pure: appends to a. */
void mtb_console_qemu_argv(struct mtb_argv *a, const struct mtb_qemu_boot *b);
#endif
