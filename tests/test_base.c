/* The ground floor's pieces that have no room of their own to be tested
 * with: SHA-256 (base/sha256.c), the trust in a directory
 * (base/dir_trust.c), text on its way to a terminal
 * (base/text_escape.c, and error_set through it), items done by threads as
 * they come (base/work_queue.c), the rules of text files and numbers that
 * users write (base/user_text.c, base/number_parse.c), the checkpoints'
 * little-endian files (base/le_file.c). */
#include "check.h"
#include "dir_trust.h"
#include "error.h"
#include "hash.h"
#include "le_file.h"
#include "number_parse.h"
#include "sha256.h"
#include "text_escape.h"
#include "user_text.h"
#include "work_queue.h"

#include <float.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* FIPS 180-4's examples (NIST's "SHA256.pdf", "SHA2_Additional.pdf"), and
 * lengths about the padding's boundaries (digests from sha256sum). */
static void test_sha256_vectors(void)
{
    static const struct {
        const char *text;
        const char *digest;
    } v[] = {
        {"", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"},
        {"abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"},
        {"abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
         "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"},
        {"abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqrl"
         "mnopqrsmnopqrstnopqrstu",
         "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1"},
    };
    char hex[SHA256_HEX];
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
        sha256_hex(v[i].text, strlen(v[i].text), hex);
        CHECK_MSG(strcmp(hex, v[i].digest) == 0, "\"%.20s...\": %s", v[i].text, hex);
    }
    /* one million 'a' */
    char *a = malloc(1000000);
    CHECK(a != NULL);
    if (a) {
        memset(a, 'a', 1000000);
        sha256_hex(a, 1000000, hex);
        CHECK(strcmp(hex, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0") == 0);
        free(a);
    }
    /* bytes (7 i + 3) mod 256, 55, 56, 63 and 64 of them */
    unsigned char d[64];
    for (int i = 0; i < 64; i++)
        d[i] = (unsigned char)(i * 7 + 3);
    static const struct {
        size_t n;
        const char *digest;
    } b[] = {
        {55, "e7313d333c272e639f790978283f9eb392e843d0f29b7016828bb1daa4aac70b"},
        {56, "4324d65f3c103567f5589c710bc08f8523f929a9272e3af36fc968e52abc6c27"},
        {63, "81c80242132f230c3bd41b3e63bbcff16107339549214a99614ff26664625055"},
        {64, "39e3d7b6b5d075d37d053ad89b24b41bef4f3c29760c84447cab3f3be1882241"},
    };
    for (size_t i = 0; i < sizeof b / sizeof b[0]; i++) {
        sha256_hex(d, b[i].n, hex);
        CHECK_MSG(strcmp(hex, b[i].digest) == 0, "%zu bytes: %s", b[i].n, hex);
    }
}

/* Fed in two pieces, split anywhere: the digest of the whole. */
static void test_sha256_pieces(void)
{
    unsigned char data[200], whole[SHA256_BYTES], parts[SHA256_BYTES];
    for (int i = 0; i < 200; i++)
        data[i] = (unsigned char)(i * 31 + 1);
    sha256_ctx c;
    sha256_init(&c);
    sha256_update(&c, data, sizeof data);
    sha256_final(&c, whole);
    int differ = 0;
    for (size_t cut = 0; cut <= sizeof data; cut++) {
        sha256_init(&c);
        sha256_update(&c, data, cut);
        sha256_update(&c, data + cut, sizeof data - cut);
        sha256_final(&c, parts);
        differ += memcmp(whole, parts, sizeof whole) != 0;
    }
    CHECK_MSG(differ == 0, "%d splits differ from the whole", differ);
}

/* A uid that is neither this user nor root, for chown (root only). */
#define OTHER_UID 54321

static void test_dir_trust(void)
{
    char base[] = "/tmp/tmcml_test_base.XXXXXX", sub[64], deep[96], file[96];
    tm_error err = {0};
    CHECK(mkdtemp(base) != NULL);
    snprintf(sub, sizeof sub, "%s/sub", base);
    snprintf(deep, sizeof deep, "%s/a/b", sub);
    snprintf(file, sizeof file, "%s/f", base);

    /* a private directory under /tmp (root's, sticky) and its missing
     * children, by the nearest existing directory */
    CHECK_MSG(dir_trust_check(base, &err), "%s", err.message);
    CHECK(dir_trust_check(deep, &err));
    /* made 0700 whatever the umask */
    mode_t old = umask(002);
    CHECK(dir_trust_make(deep, &err));
    umask(old);
    struct stat st;
    CHECK(stat(sub, &st) == 0 && (st.st_mode & 0777) == 0700);
    CHECK(stat(deep, &st) == 0 && (st.st_mode & 0777) == 0700);
    CHECK(dir_trust_check(deep, &err));

    /* writable by others: refused, naming the directory and the mode, also
     * from below it */
    static const struct {
        mode_t mode;
        const char *says;
    } bad[] = {{0775, "writable by its group (mode 0775, not sticky)"},
               {0757, "writable by everyone (mode 0757, not sticky)"},
               {02777, "writable by its group and everyone (mode 2777, not sticky)"}};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        CHECK(chmod(sub, bad[i].mode) == 0);
        memset(&err, 0, sizeof err);
        CHECK(!dir_trust_check(sub, &err));
        CHECK_CONTAINS(err.file, sub);
        CHECK_CONTAINS(err.message, bad[i].says);
        CHECK(!dir_trust_check(deep, &err));
        CHECK_CONTAINS(err.file, sub);
    }
    /* sticky, as /tmp: accepted (others cannot replace this user's files) */
    CHECK(chmod(sub, 01777) == 0);
    CHECK(dir_trust_check(sub, &err) && dir_trust_check(deep, &err));
    CHECK(chmod(sub, 0700) == 0);

    /* files: this user's are trusted, another's not, a missing one is */
    FILE *f = fopen(file, "w");
    CHECK(f && fclose(f) == 0);
    CHECK(dir_trust_file(file));
    snprintf(file, sizeof file, "%s/none", base);
    CHECK(dir_trust_file(file));
    snprintf(file, sizeof file, "%s/f", base);

    /* owned by another user (root can make one) */
    if (chown(sub, OTHER_UID, OTHER_UID) == 0 && chown(file, OTHER_UID, OTHER_UID) == 0) {
        CHECK(!dir_trust_check(deep, &err));
        CHECK_CONTAINS(err.file, sub);
        CHECK_CONTAINS(err.message, "owned by uid 54321");
        CHECK(!dir_trust_file(file));
        CHECK(chown(sub, geteuid(), getegid()) == 0);
    } else {
        printf("chown: the cases of another owner skipped (they need root)\n");
    }
    CHECK(remove(file) == 0 && rmdir(deep) == 0);
    snprintf(deep, sizeof deep, "%s/a", sub);
    CHECK(rmdir(deep) == 0 && rmdir(sub) == 0 && rmdir(base) == 0);
}

static void test_text_escape(void)
{
    static const struct {
        const char *in, *out;
        bool keep_lines;
    } v[] = {
        /* a shared profile's device name that would retitle the terminal */
        {"GPU\x1b]0;pwned\x07", "GPU\\x1b]0;pwned\\x07", false},
        {"red \x1b[31m", "red \\x1b[31m", true},
        {"a\nb\tc\rd", "a\\x0ab\\x09c\\x0dd", false},
        {"a\nb\tc\rd", "a\nb\tc\\x0dd", true},
        {"del\x7f", "del\\x7f", true},
        /* C1 controls: U+009B (CSI) in UTF-8, and a lone 0x9b byte */
        {"csi\xc2\x9b"
         "2J",
         "csi\\xc2\\x9b2J", true},
        {"csi\x9b"
         "2J",
         "csi\\x9b2J", true},
        /* UTF-8 kept: U+00B5, U+00E9, U+20AC, U+1F600, U+00A0 */
        {"\xc2\xb5m caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80 \xc2\xa0",
         "\xc2\xb5m caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80 \xc2\xa0", true},
        /* not UTF-8: an overlong '/', a surrogate, a cut sequence, Latin-1 */
        {"\xc0\xaf", "\\xc0\\xaf", true},
        {"\xed\xa0\x80", "\\xed\\xa0\\x80", true},
        {"\xe2\x82", "\\xe2\\x82", true},
        {"caf\xe9", "caf\\xe9", true},
        {"", "", true},
    };
    char buf[128];
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
        text_escape(v[i].in, v[i].keep_lines, buf, sizeof buf);
        CHECK_MSG(strcmp(buf, v[i].out) == 0, "case %zu: \"%s\"", i, buf);
        CHECK(text_escape_size(v[i].in, v[i].keep_lines) == strlen(v[i].out) + 1);
    }
    /* cut at a character, never inside an escape or a UTF-8 sequence */
    text_escape("ab\x1b", true, buf, 5);
    CHECK(strcmp(buf, "ab") == 0);
    text_escape("a\xe2\x82\xac", true, buf, 4);
    CHECK(strcmp(buf, "a") == 0);
    text_escape("a\xe2\x82\xac", true, buf, 5);
    CHECK(strcmp(buf, "a\xe2\x82\xac") == 0);

    /* error_set shows the file and the message escaped, lines kept */
    tm_error err;
    error_set(&err, "in\x1b[2J.mci", 3, "bad token \"%s\"\nsecond line", "x\x07");
    CHECK(strcmp(err.file, "in\\x1b[2J.mci") == 0);
    CHECK(strcmp(err.message, "bad token \"x\\x07\"\nsecond line") == 0);
    /* the file may be the error's own (escaping again changes nothing) */
    error_set(&err, err.file, 0, "again");
    CHECK(strcmp(err.file, "in\\x1b[2J.mci") == 0);
}

/* work_queue's items: each done once, by the queue's threads (the pusher
 * goes on at once), all done when finish returns. */
#define QUEUE_ITEMS 500

typedef struct queue_probe {
    pthread_t pusher;
    atomic_int done[QUEUE_ITEMS];
    atomic_int by_pusher, total;
} queue_probe;

static void count_item(void *ctx, int item)
{
    queue_probe *p = ctx;
    atomic_fetch_add(&p->done[item], 1);
    atomic_fetch_add(&p->by_pusher, pthread_equal(pthread_self(), p->pusher) ? 1 : 0);
    atomic_fetch_add(&p->total, 1);
}

static void check_items_once(queue_probe *p, int n)
{
    int once = 0;
    for (int i = 0; i < n; i++)
        once += atomic_load(&p->done[i]) == 1;
    CHECK(once == n);
    CHECK(atomic_load(&p->total) == n);
}

static void test_work_queue(void)
{
    static queue_probe p;
    p.pusher = pthread_self();
    work_queue *q = work_queue_start(QUEUE_ITEMS, 4, count_item, &p);
    CHECK(q != NULL);
    for (int i = QUEUE_ITEMS - 1; q && i >= 0; i--) /* any order */
        work_queue_push(q, i);
    work_queue_finish(q);
    check_items_once(&p, QUEUE_ITEMS);
    CHECK(atomic_load(&p.by_pusher) == 0);

    /* No thread of its own: each item done by the pusher, before push returns. */
    static queue_probe alone;
    alone.pusher = pthread_self();
    q = work_queue_start(3, 0, count_item, &alone);
    CHECK(q != NULL);
    for (int i = 0; q && i < 3; i++) {
        work_queue_push(q, i);
        CHECK(atomic_load(&alone.done[i]) == 1);
    }
    work_queue_finish(q);
    check_items_once(&alone, 3);
    CHECK(atomic_load(&alone.by_pusher) == 3);

    /* More items than room: the rest done here, none lost. */
    static queue_probe full;
    full.pusher = pthread_self();
    q = work_queue_start(2, 2, count_item, &full);
    for (int i = 0; q && i < 6; i++)
        work_queue_push(q, i);
    work_queue_finish(q);
    check_items_once(&full, 6);
    work_queue_finish(NULL);
}

/* Every number reader's rule: a nonzero text whose value underflows to 0
 * or to a subnormal is refused (issue 42: 1e-400 and 2e-324 were read as
 * 0, 1e-320 refused), zero written as zero is 0, never -0. */
static void test_number_parse(void)
{
    static const struct {
        const char *text;
        number_status status;
        double value;
    } v[] = {
        {"0", NUMBER_OK, 0.0},
        {"0.0", NUMBER_OK, 0.0},
        {"0e5", NUMBER_OK, 0.0},
        {"-0", NUMBER_OK, 0.0},
        {"0x0p-3", NUMBER_OK, 0.0},
        {"000.000e-999", NUMBER_OK, 0.0},
        {"1.5", NUMBER_OK, 1.5},
        {"-2e3", NUMBER_OK, -2000.0},
        {"1e-300", NUMBER_OK, 1e-300},
        {"2.2250738585072014e-308", NUMBER_OK, DBL_MIN},
        {"0x1p-1022", NUMBER_OK, DBL_MIN},
        {"1e-400", NUMBER_TOO_SMALL, 0},
        {"-1e-400", NUMBER_TOO_SMALL, 0},
        {"2e-324", NUMBER_TOO_SMALL, 0},
        {"1e-320", NUMBER_TOO_SMALL, 0},
        {"0.0001e-305", NUMBER_TOO_SMALL, 0},
        {"0x1p-1080", NUMBER_TOO_SMALL, 0},
        {"0x0.8p-1074", NUMBER_TOO_SMALL, 0},
        {"", NUMBER_NONE, 0},
        {"x", NUMBER_NONE, 0},
        {"1.5cm", NUMBER_TRAILING, 0},
        {"1e-400x", NUMBER_TRAILING, 0},
        {"nan", NUMBER_NOT_FINITE, 0},
        {"1e999", NUMBER_NOT_FINITE, 0},
    };
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
        double got = -7.0;
        number_status s = number_parse(v[i].text, &got);
        CHECK_MSG(s == v[i].status, "\"%s\": status %d, expected %d", v[i].text, (int)s,
                  (int)v[i].status);
        if (v[i].status == NUMBER_OK)
            CHECK_MSG(got == v[i].value && !signbit(got) == !signbit(v[i].value),
                      "\"%s\": %g, expected %g", v[i].text, got, v[i].value);
    }
    const char *end = NULL;
    double dt = 0;
    CHECK(number_parse_prefix("0.01:10", &end, &dt) == NUMBER_OK && dt == 0.01 && *end == ':');
    CHECK(number_parse_prefix("1e-400:10", &end, &dt) == NUMBER_TOO_SMALL && *end == ':');
    CHECK(number_is_subnormal(1e-320) && number_is_subnormal(-DBL_MIN / 2));
    CHECK(!number_is_subnormal(0.0) && !number_is_subnormal(DBL_MIN) &&
          !number_is_subnormal(INFINITY));
    tm_error err = {0};
    number_error_set(&err, "f.csv", 3, "layer 2", "1e-400", NUMBER_TOO_SMALL);
    CHECK_CONTAINS(err.message, "layer 2: too small to compute with (\"1e-400\"): a number other "
                                "than 0 must be at least 1e-300");
    CHECK(strcmp(err.file, "f.csv") == 0 && err.line == 3);
}

/* Every text reader's rule: a UTF-8 byte-order mark skipped, a NUL byte
 * refused at its line with the hint for UTF-16 (issue 42: a UTF-16 file of
 * sets ran one set, a marked one failed on an invisible character). */
static void test_user_text(void)
{
    CHECK(strcmp(user_text_skip_bom("\xEF\xBB\xBF"
                                    "1 2"),
                 "1 2") == 0);
    CHECK(strcmp(user_text_skip_bom("1 2"), "1 2") == 0);
    CHECK(strcmp(user_text_skip_bom("\xEF\xBB"), "\xEF\xBB") == 0);
    char dir[] = "/tmp/tmcml_test_text.XXXXXX", path[64];
    CHECK(mkdtemp(dir) != NULL);
    snprintf(path, sizeof path, "%s/t.csv", dir);
    static const struct {
        const char *bytes;
        size_t size;
        const char *text;    /* read back, or NULL: refused */
        int line;            /* the refusal's */
        const char *message; /* part of it */
    } v[] = {
        {"\xEF\xBB\xBF"
         "0.1 1\n",
         9, "0.1 1\n", 0, NULL},
        {"0.1 1\n", 6, "0.1 1\n", 0, NULL},
        {"", 0, "", 0, NULL},
        {"1\n2\n3\0\n", 7, NULL, 3,
         "NUL byte: not a text file, or UTF-16 text (save the file as "
         "UTF-8 or ASCII)"},
        {"\xFF\xFE"
         "1\0\n\0",
         6, NULL, 1,
         "NUL byte: not a text file but UTF-16 (save the "
         "file as UTF-8 or ASCII)"},
    };
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
        FILE *f = fopen(path, "wb");
        CHECK(f && fwrite(v[i].bytes, 1, v[i].size, f) == v[i].size);
        if (f)
            fclose(f);
        tm_error err = {0};
        size_t size = 99;
        char *text = user_text_read(path, 1 << 20, true, &size, &err);
        if (v[i].text) {
            CHECK_MSG(text && strcmp(text, v[i].text) == 0 && size == strlen(v[i].text),
                      "case %zu: %s", i, text ? text : err.message);
        } else {
            CHECK_MSG(!text, "case %zu read", i);
            CHECK_MSG(err.line == v[i].line, "case %zu: line %d", i, err.line);
            CHECK_CONTAINS(err.message, v[i].message);
        }
        free(text);
    }
    remove(path);
    rmdir(dir);
}

/* Fields written and read back, the bytes little-endian and the sum
 * theirs; then a file cut short, a text longer than allowed or than the
 * file, and a NUL byte in a text, each refused by name once. */
static void test_le_file(void)
{
    FILE *f = tmpfile();
    CHECK(f != NULL);
    if (!f)
        return;
    le_writer w = le_writer_start(f);
    le_put(&w, "MAGIC", 5);
    le_put_u32(&w, 0x01020304u);
    le_put_u64(&w, UINT64_C(0x1122334455667788));
    le_put_double(&w, -0.1);
    le_put_text(&w, "text");
    le_put_uint(&w, 0xabcdef, 3);
    CHECK(w.ok && ftell(f) == 5 + 4 + 8 + 8 + 4 + 4 + 3);
    unsigned char bytes[36];
    rewind(f);
    CHECK(fread(bytes, 1, sizeof bytes, f) == sizeof bytes);
    CHECK(bytes[5] == 4 && bytes[8] == 1 && bytes[9] == 0x88 && bytes[16] == 0x11 &&
          bytes[25] == 4 && bytes[29] == 't' && bytes[33] == 0xef && bytes[35] == 0xab);
    CHECK(w.sum == hash_fnv1a(HASH_FNV1A_START, bytes, sizeof bytes));

    tm_error err = {0};
    rewind(f);
    le_reader r = le_reader_start(f, "x.ckpt", "test file", UINT64_MAX, &err);
    char magic[5];
    le_get(&r, magic, 5);
    CHECK(memcmp(magic, "MAGIC", 5) == 0 && le_get_u32(&r) == 0x01020304u);
    CHECK(le_get_u64(&r) == UINT64_C(0x1122334455667788) && le_get_double(&r) == -0.1);
    char *text = le_get_text(&r, 4);
    CHECK(text && strcmp(text, "text") == 0);
    free(text);
    CHECK(le_get_uint(&r, 3) == 0xabcdef && r.ok && r.sum == w.sum);
    CHECK(le_get_u32(&r) == 0 && !r.ok &&
          strcmp(err.message, "not a valid test file: truncated") == 0);

    /* The text at byte 25: longer than allowed, longer than what is left,
     * holding a NUL byte. */
    const struct {
        uint64_t left, most;
        const char *message;
    } texts[] = {{UINT64_MAX, 3, "not a valid test file: a text field is too long"},
                 {4 + 3, 4, "not a valid test file: truncated"},
                 {UINT64_MAX, 4, "not a valid test file: a text field holds a NUL byte"}};
    for (size_t i = 0; i < sizeof texts / sizeof texts[0]; i++) {
        if (i == 2) {
            fseek(f, 29, SEEK_SET);
            CHECK(fwrite("te\0t", 1, 4, f) == 4);
        }
        fseek(f, 25, SEEK_SET);
        err = (tm_error){0};
        r = le_reader_start(f, "x.ckpt", "test file", texts[i].left, &err);
        free(le_get_text(&r, texts[i].most));
        CHECK_MSG(!r.ok && strcmp(err.message, texts[i].message) == 0, "%zu: %s", i, err.message);
    }
    fclose(f);
}

int main(void)
{
    test_le_file();
    test_number_parse();
    test_user_text();
    test_work_queue();
    test_text_escape();
    test_sha256_vectors();
    test_sha256_pieces();
    test_dir_trust();
    return check_summary("test_base");
}
