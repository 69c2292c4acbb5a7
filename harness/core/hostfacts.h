/* hostfacts.h - facts about this machine used by platforms, doctor and
 * provenance: arm64 or not, MTE in HWCAP2, KVM with MTE, tool versions. */
#ifndef MTB_HOSTFACTS_H
#define MTB_HOSTFACTS_H
#include <stddef.h>

int mtb_host_is_arm64(void);
int mtb_host_has_mte(void);      /* HWCAP2_MTE */
int mtb_host_has_mte3(void);     /* HWCAP2_MTE3 */
/* 1 when KVM with MTE can be used (/dev/kvm on an MTE arm64 host, with
 * KVM_CAP_ARM_MTE). */
int mtb_host_kvm_mte(void);
/* "qemu-aarch64 version 10.0.2 ..." first line, or NULL */
const char *mtb_qemu_user_version(void);
/* qemu-system-aarch64 --version first line, or NULL. */
const char *mtb_qemu_system_version(void);
/* 1 when a QEMU program is there (version: its version line, or NULL when it
 * is not found) and new enough for MTE (8.0: 7.2 mis-tags memory); else 0
 * and why (what: "qemu-aarch64", "qemu-system-aarch64") */
int mtb_qemu_usable(const char *what, const char *version, char *why, size_t n);
#endif
