/* hash.h - SHA-256 of texts and files (OpenSSL), as the keys of builds,
 * kernels, setups and guest images */
#ifndef MTB_HASH_H
#define MTB_HASH_H
#include <stddef.h>

/* Streaming SHA-256 (OpenSSL EVP) producing lowercase hex. */
struct mtb_hash;
struct mtb_hash *mtb_hash_new(void);
void mtb_hash_str(struct mtb_hash *h, const char *label, const char *s);
int mtb_hash_file(struct mtb_hash *h, const char *label, const char *path);
void mtb_hash_final(struct mtb_hash *h, char hex[65]);
int mtb_sha256_file(const char *path, char hex[65]);
#endif
