/* vm.h - PLATFORM=vm: boot qemu-system-aarch64 (-machine virt,mte=on) from a
 * named kernel with the project's guest initramfs, run the guest's own
 * mtebench inside it, and hand its output back to the host. */
#ifndef MTB_VM_H
#define MTB_VM_H
#include <jansson.h>
#include "build.h"
#include "kernel.h"

struct mtb_run;

/* qemu-system-aarch64 --version first line, or NULL. */
const char *mtb_qemu_system_version(void);
/* 1 when the guest image can be made here (arm64 bash, busybox and loader,
 * readelf, cpio); 0 with why otherwise. */
int mtb_vm_guest_ready(char *why, size_t n);
/* 1 when KVM with MTE can be used (/dev/kvm on an MTE arm64 host). */
int mtb_vm_kvm(void);

/* The guest initramfs with these service builds (n may be 0), cached by a
 * hash of its content. @return 0 (path and hash filled) or -1 with err. */
int mtb_guest_image(const struct mtb_build *const *builds, const char *const *variants, int n,
                    const char *service, char **path, char hash[65], char *err, size_t errlen);

struct mtb_vm {
    const struct mtb_kernel *kernel;
    const char *initrd;
    char *const *args;       /* the guest mtebench's arguments (no spaces inside) */
    const char *dir;         /* console.log, qemu.log and the returned files (dir/guest/...) */
    double boot_timeout;     /* until the guest's init says "up" */
    double run_timeout;      /* from then until the guest powers off */
    int smp, mem_mb;
    int quiet;
};

struct mtb_vm_result {
    int booted;              /* init reported "up" */
    int finished;            /* the hand-back ended with MTB-END */
    int guest_exit;          /* the agent's exit status */
    double boot_seconds;     /* qemu start to init "up" (host clock) */
    double total_seconds;
    char uname_r[128];       /* as reported by the guest's init */
    json_t *info;            /* {accel, qemu, command, boot_seconds, ...} for records */
};

struct mtb_argv;
/* The qemu-system-aarch64 command line of a boot: KVM (-accel kvm -cpu host,
 * the host's GIC) or TCG (-cpu max,pauth-impdef=on), the serial console to
 * `console`, the hand-back channel to `chan`. Pure: appends to a. */
void mtb_vm_qemu_argv(const struct mtb_vm *vm, int kvm, const char *console, const char *chan, struct mtb_argv *a);

/* Boot, run, collect. @return 0 when the guest finished and handed its
 * output back, -1 otherwise (err says why; console.log is kept). */
int mtb_vm_exec(const struct mtb_vm *vm, struct mtb_vm_result *res, char *err, size_t errlen);

/* `mtebench proof --platform vm --mode M [--kernel K]`: the probe inside a
 * guest; prints the guest's proof JSON. @return 0 proved, 1 not, 2 no guest. */
int mtb_vm_proof(const char *kernel, const char *mode, int quiet);

/* The run of platform vm (platform table): one guest boot per run. */
int mtb_vm_run(const struct mtb_run *run, json_t **record);
#endif
