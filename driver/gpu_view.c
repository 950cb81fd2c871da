/* The GPUs the CUDA driver sees (driver/gpu_view.h). */
#include "gpu_view.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define NODE_ROOT "/proc/driver/nvidia/gpus"
#define CAPS_ROOT "/proc/driver/nvidia/capabilities"
#define MPS_PIPES "/tmp/nvidia-mps" /* the MPS control daemon's default pipe directory */

/* ---- the node's list ---------------------------------------------------------- */

/* "Model: \t NVIDIA H100 80GB HBM3" of a GPU's information file. */
static void read_model(const char *root, const char *bus, char *model, size_t size)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s/information", root, bus);
    model[0] = '\0';
    FILE *f = fopen(path, "r");
    char line[256];
    while (f && fgets(line, sizeof line, f)) {
        if (strncmp(line, "Model:", 6) != 0)
            continue;
        const char *v = line + 6;
        v += strspn(v, " \t");
        snprintf(model, size, "%.*s", (int)strcspn(v, "\r\n"), v);
        break;
    }
    if (f)
        fclose(f);
}

static int by_name(const void *a, const void *b) { return strcmp(a, b); }

void gpu_node_read(const char *root, gpu_node *node)
{
    memset(node, 0, sizeof *node);
    DIR *d = opendir(root);
    struct dirent *e;
    while (d && (e = readdir(d)) != NULL) {
        char bus[sizeof node->bus[0]];
        int len = snprintf(bus, sizeof bus, "%s", e->d_name);
        if (e->d_name[0] == '.' || len < 0 || (size_t)len >= sizeof bus)
            continue;                      /* longer than a bus id: not a GPU's entry */
        if (node->count == GPU_NODE_MAX) { /* more than this is a list we do not know */
            node->count = 0;
            break;
        }
        memcpy(node->bus[node->count++], bus, sizeof bus);
    }
    if (d)
        closedir(d);
    /* "0000:18:00.0": fixed-width hexadecimal, so the names sort as the bus */
    qsort(node->bus, (size_t)node->count, sizeof node->bus[0], by_name);
    for (int i = 0; i < node->count; i++)
        read_model(root, node->bus[i], node->model[i], sizeof node->model[i]);
}

/* An entry of dir whose name starts with prefix. */
static bool has_entry(const char *dir, const char *prefix)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    bool found = false;
    while (d && !found && (e = readdir(d)) != NULL)
        found = strncmp(e->d_name, prefix, strlen(prefix)) == 0;
    if (d)
        closedir(d);
    return found;
}

bool gpu_node_has_mig(const char *caps)
{
    DIR *d = opendir(caps);
    struct dirent *e;
    bool mig = false;
    while (d && !mig && (e = readdir(d)) != NULL) {
        if (strncmp(e->d_name, "gpu", 3) != 0)
            continue;
        char dir[512];
        snprintf(dir, sizeof dir, "%s/%s/mig", caps, e->d_name);
        mig = has_entry(dir, "gi");
    }
    if (d)
        closedir(d);
    return mig;
}

/* ---- the plan ----------------------------------------------------------------- */

/* An entry CUDA_VISIBLE_DEVICES can hold: an index, or a GPU or MIG
 * identifier. */
static bool entry_known(const char *s, size_t len)
{
    if (len == 0)
        return false;
    if (len > 4 && (strncmp(s, "GPU-", 4) == 0 || strncmp(s, "MIG-", 4) == 0))
        return true;
    for (size_t i = 0; i < len; i++)
        if (s[i] < '0' || s[i] > '9')
            return false;
    return len < 6; /* an index of at most five digits (no node has more GPUs) */
}

typedef struct entry {
    const char *at;
    size_t len;
} entry;

/* The entries of CUDA_VISIBLE_DEVICES, or -1 when one is not known. */
static int split_entries(const char *env, entry *out, int most)
{
    int n = 0;
    for (const char *p = env;; p++) {
        size_t len = strcspn(p, ",");
        if (n == most || !entry_known(p, len))
            return -1;
        out[n++] = (entry){p, len};
        p += len;
        if (*p == '\0')
            return n;
    }
}

/* The GPUs of the node all of one model (and named). */
static bool one_model(const gpu_node *node)
{
    for (int i = 0; i < node->count; i++)
        if (node->model[i][0] == '\0' || strcmp(node->model[i], node->model[0]) != 0)
            return false;
    return true;
}

static void append(char *out, size_t size, const char *s, size_t len)
{
    size_t at = strlen(out);
    snprintf(out + at, size - at, "%s%.*s", at ? "," : "", (int)len, s);
}

void gpu_view_plan(const char *visible_env, bool pci_order, const gpu_node *node,
                   const int *devices, int n, gpu_view *view)
{
    memset(view, 0, sizeof *view);
    int unique[DRIVER_MAX_GPUS], kept = 0;
    for (int i = 0; i < n && i < DRIVER_MAX_GPUS; i++) {
        view->opened[i] = devices[i];
        int j = 0;
        while (j < kept && unique[j] != devices[i])
            j++;
        if (j == kept)
            unique[kept++] = devices[i];
    }
    entry entries[GPU_NODE_MAX];
    int seen = visible_env ? split_entries(visible_env, entries, GPU_NODE_MAX) : node->count;
    bool sure = visible_env ? seen > 0 : seen > 1 && !node->mig && (pci_order || one_model(node));
    for (int j = 0; sure && j < kept; j++)
        sure = unique[j] >= 0 && unique[j] < seen;
    if (!sure || kept == seen)
        return; /* the driver's own view: unknown, or nothing to leave out */
    view->narrowed = true;
    for (int j = 0; j < kept; j++) {
        if (visible_env) {
            append(view->visible, sizeof view->visible, entries[unique[j]].at,
                   entries[unique[j]].len);
            continue;
        }
        char index[16];
        int len = snprintf(index, sizeof index, "%d", unique[j]);
        append(view->visible, sizeof view->visible, index, (size_t)len);
    }
    for (int i = 0; i < n && i < DRIVER_MAX_GPUS; i++) {
        int j = 0;
        while (unique[j] != devices[i])
            j++;
        view->opened[i] = j;
        if (!visible_env)
            snprintf(view->bus[i], sizeof view->bus[i], "%s", node->bus[devices[i]]);
    }
}

/* ---- this process ------------------------------------------------------------- */

static bool under_mps(void)
{
    return getenv("CUDA_MPS_PIPE_DIRECTORY") || access(MPS_PIPES, F_OK) == 0;
}

static bool pci_ordered(void)
{
    const char *order = getenv("CUDA_DEVICE_ORDER");
    return order && strcmp(order, "PCI_BUS_ID") == 0;
}

void gpu_view_apply(const int *devices, int n, gpu_view *view)
{
    gpu_node node;
    gpu_node_read(NODE_ROOT, &node);
    node.mig = gpu_node_has_mig(CAPS_ROOT);
    gpu_view_plan(getenv("CUDA_VISIBLE_DEVICES"), pci_ordered(), &node, devices, n, view);
    /* under MPS, or where the list cannot be set: the driver's own view */
    if (view->narrowed && (under_mps() || setenv("CUDA_VISIBLE_DEVICES", view->visible, 1) != 0))
        gpu_view_plan(NULL, false, &(gpu_node){0}, devices, n, view);
}

int gpu_view_count(void)
{
    const char *env = getenv("CUDA_VISIBLE_DEVICES");
    if (env) {
        entry entries[GPU_NODE_MAX];
        return split_entries(env, entries, GPU_NODE_MAX);
    }
    gpu_node node;
    gpu_node_read(NODE_ROOT, &node);
    return node.count > 0 && !gpu_node_has_mig(CAPS_ROOT) ? node.count : -1;
}

bool gpu_view_check(const gpu_view *view, int i, int asked, const cuda_device_info *dev,
                    tm_error *err)
{
    if (!view->narrowed || view->bus[i][0] == '\0')
        return true;
    unsigned domain, bus, device, function;
    if (sscanf(view->bus[i], "%x:%x:%x.%x", &domain, &bus, &device, &function) == 4 &&
        (int)domain == dev->pci_domain && (int)bus == dev->pci_bus &&
        (int)device == dev->pci_device)
        return true;
    error_set(err, NULL, 0,
              "GPU %d: the driver opened the GPU at PCI %04x:%02x:%02x, not the one at %s that "
              "its number names (set CUDA_VISIBLE_DEVICES to the GPUs to run on)",
              asked, (unsigned)dev->pci_domain, (unsigned)dev->pci_bus, (unsigned)dev->pci_device,
              view->bus[i]);
    return false;
}
