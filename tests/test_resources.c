/* driver/machine.c and resources.c: byte counts read and written; the
 * policy of `tmcml run` (fewer threads, refusals) against limits set by the
 * TMCML_*_LIMIT variables, with the estimates of footprint.c. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "cpu.h"
#include "footprint.h"
#include "machine.h"
#include "resources.h"

static void test_parse_bytes(void)
{
    static const struct {
        const char *text;
        uint64_t bytes;
    } good[] = {
        {"0", 0},
        {"1048576", 1048576},
        {"4G", (uint64_t)4 << 30},
        {"4g", (uint64_t)4 << 30},
        {"512M", (uint64_t)512 << 20},
        {"10KiB", 10240},
        {"10KB", 10240},
        {"7B", 7},
        {"1.5G", (uint64_t)3 << 29},
        {"0.5K", 512},
        {"2T", (uint64_t)2 << 40},
        {"18446744073709551615", UINT64_MAX},
    };
    for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
        uint64_t v = 1;
        CHECK_MSG(machine_parse_bytes(good[i].text, &v) && v == good[i].bytes, "%s -> %llu",
                  good[i].text, (unsigned long long)v);
    }
    static const char *const bad[] = {"",
                                      "G",
                                      "-1",
                                      "1.",
                                      "1X",
                                      "1 G",
                                      " 1",
                                      "1e9",
                                      "1GG",
                                      "1Gi",
                                      "1iB",
                                      "0x10",
                                      "18446744073709551616",
                                      "16777216T"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        uint64_t v = 7;
        CHECK_MSG(!machine_parse_bytes(bad[i], &v) && v == 7, "\"%s\" accepted", bad[i]);
    }
}

static void test_format_bytes(void)
{
    char buf[32];
    CHECK(strcmp(machine_format_bytes(0, buf, sizeof buf), "0 bytes") == 0);
    CHECK(strcmp(machine_format_bytes(1023, buf, sizeof buf), "1023 bytes") == 0);
    CHECK(strcmp(machine_format_bytes(1024, buf, sizeof buf), "1.0 KiB") == 0);
    CHECK(strcmp(machine_format_bytes((uint64_t)3 << 29, buf, sizeof buf), "1.5 GiB") == 0);
    CHECK(strcmp(machine_format_bytes(UINT64_MAX, buf, sizeof buf), "16.0 EiB") == 0);
}

static void test_env(void)
{
    machine_budget b;
    tm_error err = {0};
    setenv("TMCML_MEMORY_LIMIT", "3M", 1);
    CHECK(machine_host_memory(&b, &err) && b.bytes == (uint64_t)3 << 20);
    CHECK(strcmp(b.source, "TMCML_MEMORY_LIMIT") == 0);
    setenv("TMCML_MEMORY_LIMIT", "three\033[31m", 1);
    CHECK(!machine_host_memory(&b, &err));
    CHECK_CONTAINS(err.message, "TMCML_MEMORY_LIMIT: expected a byte count");
    CHECK_CONTAINS(err.message, "\"three?[31m\"");
    /* Unset or empty: detected, a share of it. */
    setenv("TMCML_MEMORY_LIMIT", "", 1);
    CHECK(machine_host_memory(&b, &err) && b.bytes > 0);
    CHECK_CONTAINS(b.source, "80 % of ");
    unsetenv("TMCML_MEMORY_LIMIT");

    CHECK(machine_gpu_memory(1000, &b, &err) && b.bytes == 800);
    setenv("TMCML_GPU_MEMORY_LIMIT", "1K", 1);
    CHECK(machine_gpu_memory(1000, &b, &err) && b.bytes == 1024);
    unsetenv("TMCML_GPU_MEMORY_LIMIT");

    uint64_t dev1 = 0, dev2 = 1;
    CHECK(machine_disk_space("/tmp", &b, &dev1, &err) && b.bytes > 0);
    CHECK(machine_disk_space("/tmp/.", &b, &dev2, &err) && dev1 == dev2);
    setenv("TMCML_DISK_LIMIT", "5K", 1);
    CHECK(machine_disk_space("/tmp", &b, &dev1, &err) && b.bytes == 5120);
    unsetenv("TMCML_DISK_LIMIT");
    CHECK(!machine_disk_space("/nonexistent_dir", &b, &dev1, &err));
    CHECK(strcmp(err.file, "/nonexistent_dir") == 0);
}

static char tmpdir[] = "/tmp/tmcml_test_resources.XXXXXX";

/* Writes text to root/rel, making the directories on the way. */
static void put_file(const char *root, const char *rel, const char *text)
{
    char path[1024], cmd[1100];
    snprintf(path, sizeof path, "%s/%s", root, rel);
    snprintf(cmd, sizeof cmd, "mkdir -p \"$(dirname '%s')\"", path);
    CHECK(system(cmd) == 0);
    FILE *f = fopen(path, "w");
    CHECK(f != NULL);
    if (f) {
        fputs(text, f);
        fclose(f);
    }
}

/* The memory cgroups of a process, in fake trees under tmpdir: v2 with the
 * limit on the job above the step, v1 beside a v2 hierarchy, a container's
 * v1 whose path names the host's hierarchy, none, and the budget that
 * follows (issue 21: a 2 GiB Slurm job on a 500 GiB node was OOM-killed). */
static void test_cgroup(void)
{
    const uint64_t mib = (uint64_t)1 << 20;
    char root[256], what[96] = "";
    uint64_t bytes = 0;
    /* v2: the step unlimited, the job 1 GiB with 200 MiB used, 100 MiB of
     * them inactive page cache. */
    snprintf(root, sizeof root, "%s/v2", tmpdir);
    put_file(root, "proc/self/cgroup", "0::/job/step\n");
    put_file(root, "sys/fs/cgroup/job/step/memory.max", "max\n");
    put_file(root, "sys/fs/cgroup/job/step/memory.current", "5000\n");
    put_file(root, "sys/fs/cgroup/job/memory.max", "1073741824\n");
    put_file(root, "sys/fs/cgroup/job/memory.current", "209715200\n");
    put_file(root, "sys/fs/cgroup/job/memory.stat",
             "anon 7\nactive_file 9\ninactive_file 104857600\n");
    CHECK(machine_cgroup_memory(root, &bytes, what, sizeof what));
    CHECK_MSG(bytes == 924 * mib, "%llu", (unsigned long long)bytes);
    CHECK_CONTAINS(what, "the memory cgroup's limit 1.0 GiB less 100.0 MiB in use");
    /* The budget: 80 % of it, named, since it is less than MemAvailable. */
    machine_budget b;
    tm_error err = {0};
    setenv("TMCML_CGROUP_ROOT", root, 1);
    CHECK(machine_host_memory(&b, &err));
    CHECK_MSG(b.bytes == 924 * mib * 80 / 100, "%llu", (unsigned long long)b.bytes);
    CHECK_CONTAINS(b.source, "80 % of the memory cgroup's limit 1.0 GiB");
    unsetenv("TMCML_CGROUP_ROOT");

    /* v1 (a memory line) is preferred to the v2 line; the root's "no limit"
     * (2^63 rounded to a page) does not hide the job's. */
    snprintf(root, sizeof root, "%s/v1", tmpdir);
    put_file(root, "proc/self/cgroup", "0::/\n4:memory:/slurm/uid_1/job_2\n3:cpu,cpuacct:/x\n");
    put_file(root, "sys/fs/cgroup/memory/memory.limit_in_bytes", "9223372036854771712\n");
    put_file(root, "sys/fs/cgroup/memory/slurm/uid_1/job_2/memory.limit_in_bytes", "2147483648\n");
    put_file(root, "sys/fs/cgroup/memory/slurm/uid_1/job_2/memory.usage_in_bytes", "1073741824\n");
    put_file(root, "sys/fs/cgroup/memory/slurm/uid_1/job_2/memory.stat",
             "cache 5\ntotal_inactive_file 0\n");
    CHECK(machine_cgroup_memory(root, &bytes, what, sizeof what) && bytes == 1024 * mib);

    /* A container's v1 without a cgroup namespace: the path is the host's,
     * the mount's root the container's own. */
    snprintf(root, sizeof root, "%s/docker", tmpdir);
    put_file(root, "proc/self/cgroup", "9:memory:/docker/0123abcd\n");
    put_file(root, "sys/fs/cgroup/memory/memory.limit_in_bytes", "536870912\n");
    put_file(root, "sys/fs/cgroup/memory/memory.usage_in_bytes", "12582912\n");
    CHECK(machine_cgroup_memory(root, &bytes, what, sizeof what) && bytes == 500 * mib);

    /* More in use than the limit: nothing left. */
    put_file(root, "sys/fs/cgroup/memory/memory.usage_in_bytes", "636870912\n");
    CHECK(machine_cgroup_memory(root, &bytes, what, sizeof what) && bytes == 0);

    /* No limit anywhere, or no cgroup file: none. */
    snprintf(root, sizeof root, "%s/none", tmpdir);
    put_file(root, "proc/self/cgroup", "0::/user.slice\n");
    put_file(root, "sys/fs/cgroup/user.slice/memory.max", "max\n");
    CHECK(!machine_cgroup_memory(root, &bytes, what, sizeof what));
    snprintf(root, sizeof root, "%s/nothing", tmpdir);
    CHECK(!machine_cgroup_memory(root, &bytes, what, sizeof what));
    char cmd[512];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'/v2 '%s'/v1 '%s'/docker '%s'/none", tmpdir, tmpdir,
             tmpdir, tmpdir);
    CHECK(system(cmd) == 0);
}

/* An input of `runs` runs of one grid and photon count. */
static bool parse_runs(mci_file *file, int runs, int nr, int nz, int na, long photons)
{
    char text[4096];
    int n = snprintf(text, sizeof text, "1.0\n%d\n", runs);
    for (int i = 0; i < runs; i++)
        n += snprintf(text + n, sizeof text - (size_t)n,
                      "r%d.mco A\n%ld\n0.01 0.01\n%d %d %d\n1\n1.0\n1.37 1 100 0.9 0.1\n1.0\n", i,
                      photons, nz, nr, na);
    tm_error err = {0};
    bool ok = mci_parse(text, "in.mci", file, &err);
    if (!ok)
        error_print(stderr, &err);
    return ok;
}

/* The CPU engine: as many threads as fit, said once; refused when one does
 * not fit. */
static void test_cpu_threads(void)
{
    mci_file file;
    CHECK(parse_runs(&file, 2, 300, 200, 10, 100000));
    if (file.num_runs != 2)
        return;
    const char *mco[2] = {"r0.mco", "r1.mco"};
    run_footprint fp;
    footprint_of_run(&file.runs[0], file.path, &fp);
    char *notes = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&notes, &len);
    resource_request req = {.file = &file, .mco_paths = mco, .threads = 8, .notes = out};
    int threads[2] = {-1, -1};
    tm_error err = {0};
    char limit[32];

    /* Room for the tallies and three batches (and the results): 3 threads. */
    snprintf(limit, sizeof limit, "%llu", (unsigned long long)footprint_host_tallies(&fp, 3));
    setenv("TMCML_MEMORY_LIMIT", limit, 1);
    CHECK(resources_check(&req, threads, &err));
    CHECK(threads[0] == 3 && threads[1] == 3);
    fflush(out);
    CHECK_CONTAINS(notes, "tmcml: run 1 (in.mci:3): 8 threads need ");
    CHECK_CONTAINS(notes, "tmcml: run 2 (in.mci:11): 8 threads need ");
    CHECK_CONTAINS(notes, "available (TMCML_MEMORY_LIMIT): using 3 threads\n");

    /* Room for all: the threads asked for, nothing said. */
    fseek(out, 0, SEEK_SET);
    snprintf(limit, sizeof limit, "%llu", (unsigned long long)footprint_host_tallies(&fp, 8));
    setenv("TMCML_MEMORY_LIMIT", limit, 1);
    CHECK(resources_check(&req, threads, &err));
    CHECK(threads[0] == 8 && threads[1] == 8);
    fflush(out);
    CHECK(ftell(out) == 0);

    /* Few photons start few threads (cpu_thread_count): room for two is enough. */
    mci_file small;
    CHECK(parse_runs(&small, 1, 300, 200, 10, 1500));
    req.file = &small;
    snprintf(limit, sizeof limit, "%llu", (unsigned long long)footprint_host_tallies(&fp, 2));
    setenv("TMCML_MEMORY_LIMIT", limit, 1);
    CHECK(cpu_thread_count(8, 1500) == 2);
    CHECK(resources_check(&req, threads, &err) && threads[0] == 8);
    fflush(out);
    CHECK(ftell(out) == 0);
    mci_free(&small);
    req.file = &file;

    /* One byte short of one thread: refused, naming the file, line and run. */
    snprintf(limit, sizeof limit, "%llu", (unsigned long long)footprint_host_peak(&fp, 1) - 1);
    setenv("TMCML_MEMORY_LIMIT", limit, 1);
    CHECK(!resources_check(&req, threads, &err));
    CHECK(strcmp(err.file, "in.mci") == 0 && err.line == 3);
    CHECK_CONTAINS(err.message, "run 1 needs ");
    CHECK_CONTAINS(err.message, "of memory even with one thread (a 300x200x10 grid");
    CHECK_CONTAINS(err.message, "available (TMCML_MEMORY_LIMIT): nothing was simulated");
    fflush(out);
    CHECK(ftell(out) == 0);
    unsetenv("TMCML_MEMORY_LIMIT");

    fclose(out);
    free(notes);
    mci_free(&file);
}

/* The GPU engine: the device tallies against the GPU's free memory. */
static void test_gpu(void)
{
    mci_file file;
    CHECK(parse_runs(&file, 1, 300, 200, 10, 100000));
    if (file.num_runs != 1)
        return;
    const char *mco[1] = {"r0.mco"};
    run_footprint fp;
    footprint_of_run(&file.runs[0], file.path, &fp);
    resource_request req = {
        .file = &file, .mco_paths = mco, .threads = 0, .gpu_index = 1, .gpu_free = fp.device};
    int threads[1] = {-1};
    tm_error err = {0};
    /* 80 % of the free memory: not enough. */
    CHECK(!resources_check(&req, threads, &err));
    CHECK(strcmp(err.file, "in.mci") == 0 && err.line == 3);
    CHECK_CONTAINS(err.message, "run 1 needs ");
    CHECK_CONTAINS(err.message, "of GPU memory for its tallies (a 300x200x10 grid");
    CHECK_CONTAINS(err.message, "available on GPU 1 (80 % of the GPU's free ");
    CHECK_CONTAINS(err.message, "--engine cpu");
    req.gpu_free = fp.device * 2;
    CHECK(resources_check(&req, threads, &err) && threads[0] == 0);
    char limit[32];
    snprintf(limit, sizeof limit, "%llu", (unsigned long long)fp.device);
    setenv("TMCML_GPU_MEMORY_LIMIT", limit, 1);
    req.gpu_free = 0;
    CHECK(resources_check(&req, threads, &err));
    unsetenv("TMCML_GPU_MEMORY_LIMIT");
    /* The host keeps the tallies and one batch per launch. */
    snprintf(limit, sizeof limit, "%llu", (unsigned long long)footprint_host_peak(&fp, 0) - 1);
    setenv("TMCML_MEMORY_LIMIT", limit, 1);
    req.gpu_free = UINT64_MAX;
    CHECK(!resources_check(&req, threads, &err));
    CHECK_CONTAINS(err.message, "of host memory (a 300x200x10 grid");
    unsetenv("TMCML_MEMORY_LIMIT");
    mci_free(&file);
}

/* The outputs of all runs add up on one file system. */
static void test_disk(void)
{
    mci_file file;
    CHECK(parse_runs(&file, 2, 30, 20, 10, 1000));
    if (file.num_runs != 2)
        return;
    char a[128], b[128];
    snprintf(a, sizeof a, "%s/r0.mco", tmpdir);
    snprintf(b, sizeof b, "%s/r1.mco", tmpdir);
    const char *mco[2] = {a, b};
    run_footprint fp;
    footprint_of_run(&file.runs[0], file.path, &fp);
    uint64_t one = fp.mco_file + fp.json_file;
    resource_request req = {.file = &file, .mco_paths = mco, .threads = 1};
    int threads[2];
    tm_error err = {0};
    char limit[32];
    snprintf(limit, sizeof limit, "%llu", (unsigned long long)(2 * one));
    setenv("TMCML_DISK_LIMIT", limit, 1);
    CHECK(resources_check(&req, threads, &err));
    snprintf(limit, sizeof limit, "%llu", (unsigned long long)(2 * one - 1));
    setenv("TMCML_DISK_LIMIT", limit, 1);
    CHECK(!resources_check(&req, threads, &err));
    CHECK(strcmp(err.file, tmpdir) == 0);
    CHECK_CONTAINS(err.message, "the outputs of in.mci need up to ");
    CHECK_CONTAINS(err.message, "here (2 runs: .mco and JSON)");
    CHECK_CONTAINS(err.message, "free (TMCML_DISK_LIMIT): nothing was simulated");
    /* Another file system counts apart: each fits alone. */
    snprintf(b, sizeof b, "/dev/shm/r1.mco");
    if (access("/dev/shm", W_OK) == 0) {
        snprintf(limit, sizeof limit, "%llu", (unsigned long long)one);
        setenv("TMCML_DISK_LIMIT", limit, 1);
        bool apart = resources_check(&req, threads, &err);
        uint64_t d1, d2;
        machine_budget space;
        if (machine_disk_space(tmpdir, &space, &d1, &err) &&
            machine_disk_space("/dev/shm", &space, &d2, &err) && d1 != d2)
            CHECK(apart);
    }
    unsetenv("TMCML_DISK_LIMIT");
    mci_free(&file);
}

int main(void)
{
    if (!mkdtemp(tmpdir))
        return 1;
    unsetenv("TMCML_MEMORY_LIMIT");
    unsetenv("TMCML_GPU_MEMORY_LIMIT");
    unsetenv("TMCML_DISK_LIMIT");
    unsetenv("TMCML_CGROUP_ROOT");
    test_parse_bytes();
    test_format_bytes();
    test_env();
    test_cgroup();
    test_cpu_threads();
    test_gpu();
    test_disk();
    rmdir(tmpdir);
    return check_summary("test_resources");
}
