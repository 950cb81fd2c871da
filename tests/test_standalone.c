/* gen/standalone.c and `tmcml gen`'s written source: the headers inlined
 * once each, the source NVRTC compiles left as it is, and (label nvrtc)
 * `tmcml gen -o K.cu`, run in an empty directory, compiles with NVRTC
 * without a single header handed to it: no templates/ beside it, no -I.
 *   test_standalone TMCML FILE.mci
 * Exits 77 when NVRTC is not available (after the checks that need none). */
#include "check.h"
#include "compile.h"
#include "example_spec.h"
#include "fs.h"
#include "render.h"
#include "standalone.h"

#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int count(const char *s, const char *needle)
{
    int n = 0;
    for (const char *p = s; (p = strstr(p, needle)); p += strlen(needle))
        n++;
    return n;
}

/* Made-up headers: b.h includes a.h, the source includes both twice, and a
 * header it does not know stays an #include. */
static void test_inlining(void)
{
    const render_header h[2] = {{"a.h", "#ifndef A\n#define A\nint a;\n#endif"},
                                {"b.h", "  #  include \"a.h\"\nint b;\n"}};
    render_output src = {.source = (char *)"// top\n#include \"b.h\"\n#include \"a.h\"\n"
                                           "#include \"b.h\"\n#include \"c.h\"\n#include <x.h>\n"
                                           "int main;",
                         .num_headers = 2,
                         .headers = h};
    char *out = standalone_source(&src);
    CHECK(out != NULL);
    if (!out)
        return;
    printf("%s\n", out);
    CHECK(strncmp(out, "// top\n// ---- b.h, inlined", 27) == 0);
    CHECK(count(out, "int a;\n") == 1 && count(out, "int b;\n") == 1);
    CHECK(count(out, "#include \"a.h\"") == 0 && count(out, "#include \"b.h\"") == 0);
    CHECK(count(out, "#include \"c.h\"\n#include <x.h>\nint main;") == 1);
    CHECK(strstr(out, "int a;\n") < strstr(out, "int b;\n"));    /* a.h where b.h includes it */
    CHECK(count(out, "#endif\n// ---- end of a.h ----\n") == 1); /* a newline added */
    free(out);
}

/* The rendered kernel: every header inlined, the render_output unchanged. */
static void test_kernel(void)
{
    kernel_spec spec = example_spec();
    render_output src;
    tm_error err = {0};
    CHECK(render_kernel(&spec, NULL, &src, &err));
    char *before = strdup(src.source);
    char *out = standalone_source(&src);
    CHECK(out && strcmp(src.source, before) == 0);
    CHECK(count(src.source, "#include \"rng_mwc.h\"") == 1);
    for (size_t h = 0; out && h < src.num_headers; h++) {
        char line[128];
        snprintf(line, sizeof line, "#include \"%s\"", src.headers[h].name);
        CHECK_MSG(!strstr(out, line), "%s", line);
        CHECK(count(out, src.headers[h].text) == 1 || !strstr(src.source, line));
    }
    free(out);
    free(before);
    render_output_free(&src);
}

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st, (void)flag, (void)ftw;
    return remove(path);
}

/* tmcml gen FILE -o K.cu in an empty directory, compiled with no headers. */
static void test_written(const char *tmcml, const char *mci)
{
    char dir[] = "/tmp/tmcml_test_standalone.XXXXXX", cmd[8192], path[4200];
    CHECK(mkdtemp(dir) != NULL);
    snprintf(cmd, sizeof cmd, "cd '%s' && '%s' gen '%s' -q -o K.cu", dir, tmcml, mci);
    CHECK(system(cmd) == 0);
    snprintf(path, sizeof path, "%s/K.cu", dir);
    tm_error err = {0};
    char *text = fs_read_file(path, 1 << 24, false, NULL, &err);
    CHECK_MSG(text != NULL, "%s", err.message);
    render_output src = {.source = text}; /* no headers: NVRTC has only the file */
    compile_options o = {.arch = 90, .cache_dir = ""};
    compile_result r;
    bool ok = text && compile_cubin(&src, &o, &r, &err);
    CHECK_MSG(ok, "%s", err.message);
    CHECK(!ok || (r.cubin_size > 64 && memcmp(r.cubin, "\177ELF", 4) == 0));
    if (ok)
        printf("gen -o K.cu: an sm_90 cubin of %zu bytes, %d registers\n", r.cubin_size,
               r.registers);
    compile_result_free(&r);
    free(text);
    nftw(dir, rm_one, 8, FTW_DEPTH | FTW_PHYS);
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: test_standalone TMCML FILE.mci\n");
        return 2;
    }
    test_inlining();
    test_kernel();
    char version[32];
    tm_error err = {0};
    if (!compile_nvrtc_available(version, sizeof version, &err)) {
        printf("NVRTC not available: the written source's compile skipped (%s)\n", err.message);
        return check_failures ? check_summary("test_standalone") : 77;
    }
    test_written(argv[1], argv[2]);
    return check_summary("test_standalone");
}
