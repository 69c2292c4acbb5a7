/* hash.c - see hash.h */
#include "lib/hash.h"
#include "lib/util.h"
#include "lib/files.h"

#include <errno.h>
#include <fcntl.h>
#include <openssl/evp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct mtb_hash {
    EVP_MD_CTX *ctx;
};

struct mtb_hash *mtb_hash_new(void)
{
    struct mtb_hash *h = mtb_calloc(1, sizeof *h);
    h->ctx = EVP_MD_CTX_new();
    if (!h->ctx || EVP_DigestInit_ex(h->ctx, EVP_sha256(), NULL) != 1) /* OpenSSL's default provider has it: */
        mtb_oom("a SHA-256 context");                                     /* an allocation failed */
    return h;
}

void mtb_hash_str(struct mtb_hash *h, const char *label, const char *s)
{
    /* label and length framing keep ("ab","c") and ("a","bc") apart */
    char hdr[256];
    int n = snprintf(hdr, sizeof hdr, "%s:%zu:", label, strlen(s ? s : ""));
    EVP_DigestUpdate(h->ctx, hdr, (size_t)n);
    EVP_DigestUpdate(h->ctx, s ? s : "", strlen(s ? s : ""));
}

int mtb_hash_file(struct mtb_hash *h, const char *label, const char *path)
{
    size_t len;
    char *data = mtb_read_file(path, &len);
    if (!data)
        return -errno;
    char hdr[256];
    int n = snprintf(hdr, sizeof hdr, "%s:%zu:", label, len);
    EVP_DigestUpdate(h->ctx, hdr, (size_t)n);
    EVP_DigestUpdate(h->ctx, data, len);
    free(data);
    return 0;
}

void mtb_hash_final(struct mtb_hash *h, char hex[65])
{
    unsigned char md[32];
    unsigned int n = 0;
    EVP_DigestFinal_ex(h->ctx, md, &n);
    for (unsigned i = 0; i < 32; i++)
        sprintf(hex + 2 * i, "%02x", md[i]);
    hex[64] = 0;
    EVP_MD_CTX_free(h->ctx);
    free(h);
}

int mtb_sha256_file(const char *path, char hex[65])
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return -errno;
    EVP_MD_CTX *ctx = EVP_MD_CTX_new();
    EVP_DigestInit_ex(ctx, EVP_sha256(), NULL);
    unsigned char buf[65536];
    size_t r;
    while ((r = fread(buf, 1, sizeof buf, f)) > 0)
        EVP_DigestUpdate(ctx, buf, r);
    int err = ferror(f);
    fclose(f);
    unsigned char md[32];
    unsigned int n = 0;
    EVP_DigestFinal_ex(ctx, md, &n);
    EVP_MD_CTX_free(ctx);
    if (err)
        return -EIO;
    for (unsigned i = 0; i < 32; i++)
        sprintf(hex + 2 * i, "%02x", md[i]);
    hex[64] = 0;
    return 0;
}
