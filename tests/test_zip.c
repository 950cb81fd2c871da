/* runtime/io/zip.c and hash_crc32: stored members, their CRC-32s, local
 * headers, the central directory and the end records, read back field by
 * field; with the ZIP64 threshold lowered, the ZIP64 extra fields, end record
 * and locator.  Then (test_zip external) the same archives checked by
 * Python's zipfile and by `unzip -t` where they are installed: exit 77
 * when neither is. */
#include "check.h"
#include "hash.h"
#include "zip.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

static char dir[] = "/tmp/tmcml_test_zip.XXXXXX";

/* The members every archive holds: an empty one, one of two pieces, and
 * one of 300 bytes. */
static unsigned char big[300];
static const char *const names[3] = {"empty.npy", "two/pieces.npy", "big.npy"};

static bool write_archive(const char *path, uint64_t zip64_at)
{
    FILE *f = fopen(path, "wb");
    if (!f)
        return false;
    zip_writer z;
    zip_begin(&z, f);
    z.zip64_at = zip64_at;
    zip_piece none[1] = {{"", 0}};
    zip_piece two[3] = {{"hello, ", 7}, {"", 0}, {"world", 5}};
    zip_piece one[1] = {{big, sizeof big}};
    bool ok = zip_add(&z, names[0], none, 1) && zip_add(&z, names[1], two, 3) &&
              zip_add(&z, names[2], one, 1);
    ok = zip_end(&z) && ok;
    return fclose(f) == 0 && ok;
}

static uint64_t get(const unsigned char *p, int bytes)
{
    uint64_t v = 0;
    for (int i = bytes - 1; i >= 0; i--)
        v = v << 8 | p[i];
    return v;
}

static unsigned char *slurp(const char *path, size_t *n)
{
    FILE *f = fopen(path, "rb");
    unsigned char *b = malloc(1 << 16);
    *n = f && b ? fread(b, 1, 1 << 16, f) : 0;
    if (f)
        fclose(f);
    return b;
}

static void test_crc(void)
{
    CHECK(hash_crc32(0, "123456789", 9) == 0xcbf43926u);
    CHECK(hash_crc32(hash_crc32(0, "1234", 4), "56789", 5) == 0xcbf43926u);
    CHECK(hash_crc32(0, "", 0) == 0);
    CHECK(hash_crc32(0, "a", 1) == 0xe8b7be43u);
}

/* The archive's records, as APPNOTE lays them out. */
static void check_archive(const char *path, bool zip64)
{
    size_t n;
    unsigned char *b = slurp(path, &n);
    CHECK(n > 22);
    if (n <= 22) {
        free(b);
        return;
    }
    const unsigned char *end = b + n - 22;
    CHECK(get(end, 4) == 0x06054b50 && get(end + 8, 2) == 3 && get(end + 10, 2) == 3);
    uint64_t dir_size = get(end + 12, 4), dir_offset = get(end + 16, 4);
    if (zip64) {
        const unsigned char *loc = end - 20, *rec;
        CHECK(dir_offset == 0xffffffffu && get(loc, 4) == 0x07064b50);
        rec = b + get(loc + 8, 8);
        CHECK(get(rec, 4) == 0x06064b50 && get(rec + 4, 8) == 44 && get(rec + 32, 8) == 3);
        dir_size = get(rec + 40, 8);
        dir_offset = get(rec + 48, 8);
        CHECK(rec == b + dir_offset + dir_size);
    } else {
        CHECK(end == b + dir_offset + dir_size);
    }
    const uint32_t crcs[3] = {0, hash_crc32(0, "hello, world", 12), hash_crc32(0, big, sizeof big)};
    const uint64_t sizes[3] = {0, 12, sizeof big};
    const unsigned char *c = b + dir_offset;
    for (int i = 0; i < 3 && c < end; i++) {
        CHECK(get(c, 4) == 0x02014b50 && get(c + 10, 2) == 0); /* stored */
        uint64_t size = get(c + 24, 4), offset = get(c + 42, 4);
        size_t name_len = get(c + 28, 2), extra_len = get(c + 30, 2);
        CHECK(get(c + 16, 4) == crcs[i]);
        CHECK(name_len == strlen(names[i]) && memcmp(c + 46, names[i], name_len) == 0);
        const unsigned char *x = c + 46 + name_len;
        if (size == 0xffffffffu) { /* ZIP64: sizes, then the offset if escaped */
            CHECK(zip64 && get(x, 2) == 1 && get(x + 4, 8) == sizes[i]);
            size = get(x + 4, 8);
            x += 16;
        }
        if (offset == 0xffffffffu) {
            CHECK(zip64 && (extra_len == 12 || extra_len == 28));
            offset = get(c + 46 + name_len + extra_len - 8, 8);
        }
        CHECK(size == sizes[i]);
        const unsigned char *l = b + offset;
        CHECK(get(l, 4) == 0x04034b50 && get(l + 14, 4) == crcs[i]);
        size_t local_extra = get(l + 28, 2);
        CHECK(local_extra == (get(l + 22, 4) == 0xffffffffu ? 20u : 0u));
        const unsigned char *data = l + 30 + name_len + local_extra;
        CHECK(hash_crc32(0, data, size) == crcs[i]);
        c += 46 + name_len + extra_len + get(c + 32, 2);
    }
    CHECK(c == b + dir_offset + dir_size);
    free(b);
}

/* python3's zipfile lists name, size and CRC of each member read back. */
static int external(const char *plain, const char *zip64)
{
    int checked = 0;
    const char *paths[2] = {plain, zip64};
    char cmd[4096];
    for (int k = 0; k < 2; k++) {
        snprintf(cmd, sizeof cmd,
                 "python3 -c 'import sys, zipfile, zlib\n"
                 "z = zipfile.ZipFile(sys.argv[1])\n"
                 "assert z.testzip() is None\n"
                 "print(\" \".join(\"%%s:%%d:%%08x\" %% (i.filename, len(z.read(i)), "
                 "zlib.crc32(z.read(i))) for i in z.infolist()))' %s",
                 paths[k]);
        FILE *p = system("python3 -c 'import zipfile' 2>/dev/null") == 0 ? popen(cmd, "r") : NULL;
        if (!p)
            continue;
        char line[512] = "";
        if (!fgets(line, sizeof line, p))
            line[0] = '\0';
        CHECK(pclose(p) == 0);
        char want[512];
        snprintf(want, sizeof want,
                 "empty.npy:0:00000000 two/pieces.npy:12:%08x big.npy:300:%08x\n",
                 hash_crc32(0, "hello, world", 12), hash_crc32(0, big, sizeof big));
        CHECK_MSG(strcmp(line, want) == 0, "python's zipfile on %s: %s", paths[k], line);
        printf("python3 zipfile, %s: %s", paths[k], line);
        checked++;
    }
    if (system("unzip -v >/dev/null 2>&1") == 0) {
        for (int k = 0; k < 2; k++) {
            snprintf(cmd, sizeof cmd, "unzip -tq %s", paths[k]);
            CHECK_MSG(system(cmd) == 0, "unzip -t %s", paths[k]);
        }
        checked++;
    }
    if (!checked) {
        printf("neither python3's zipfile nor unzip is installed: skipped\n");
        return 77;
    }
    return check_summary("test_zip external");
}

int main(int argc, char **argv)
{
    for (size_t i = 0; i < sizeof big; i++)
        big[i] = (unsigned char)(i * 7 + 3);
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        return 1;
    }
    char plain[64], zip64[64];
    snprintf(plain, sizeof plain, "%s/plain.zip", dir);
    snprintf(zip64, sizeof zip64, "%s/zip64.zip", dir);
    /* Every size and offset from 64 bytes on is ZIP64: big.npy's size and
     * the later offsets, the directory's offset. */
    CHECK(write_archive(plain, UINT32_MAX) && write_archive(zip64, 64));
    int status;
    if (argc > 1 && strcmp(argv[1], "external") == 0) {
        status = external(plain, zip64);
    } else {
        test_crc();
        check_archive(plain, false);
        check_archive(zip64, true);
        /* A write error (ENOSPC from a private node of /dev/full's kind:
         * root makes one): the stream's error surfaces at the end. */
        char full_path[64];
        snprintf(full_path, sizeof full_path, "%s/full", dir);
        FILE *full =
            mknod(full_path, S_IFCHR | 0600, makedev(1, 7)) == 0 ? fopen(full_path, "wb") : NULL;
        if (!full)
            printf("no device node of /dev/full's kind (not root?): the write error skipped\n");
        if (full) {
            zip_writer z;
            zip_begin(&z, full);
            setvbuf(full, NULL, _IONBF, 0);
            zip_piece p[1] = {{big, sizeof big}};
            zip_add(&z, "x", p, 1);
            CHECK(!zip_end(&z));
            fclose(full);
        }
        status = check_summary("test_zip");
    }
    unlink(plain);
    unlink(zip64);
    char full_path[64];
    snprintf(full_path, sizeof full_path, "%s/full", dir);
    unlink(full_path);
    rmdir(dir);
    return status;
}
