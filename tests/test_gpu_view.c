/* driver/gpu_view.c: which GPUs the driver is let see.  The plan narrows
 * CUDA_VISIBLE_DEVICES only where the narrowed numbers surely name the GPUs
 * asked for (an environment list of known entries; the node's list of one
 * model, or PCI order asked for), keeps the driver's own view otherwise, and
 * maps each GPU asked for to its narrowed number; the node's list is read
 * in PCI order with its models; the check compares where the opened GPU
 * sits. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "gpu_view.h"

static gpu_node node_of(int count, const char *const *models)
{
    gpu_node node = {.count = count};
    for (int i = 0; i < count; i++) {
        snprintf(node.bus[i], sizeof node.bus[i], "0000:%02x:00.0", 0x18 + 0x10 * i);
        snprintf(node.model[i], sizeof node.model[i], "%s", models[i]);
    }
    return node;
}

static const char *const four_h100[] = {"NVIDIA H100 80GB HBM3", "NVIDIA H100 80GB HBM3",
                                        "NVIDIA H100 80GB HBM3", "NVIDIA H100 80GB HBM3"};
static const char *const mixed[] = {"NVIDIA H100 80GB HBM3", "NVIDIA H200"};

static void unset_environment_uses_the_node_list(void)
{
    gpu_node node = node_of(4, four_h100);
    gpu_view v;
    gpu_view_plan(NULL, false, &node, (int[]){2}, 1, &v);
    CHECK(v.narrowed);
    CHECK(strcmp(v.visible, "2") == 0);
    CHECK(v.opened[0] == 0);
    CHECK(strcmp(v.bus[0], "0000:38:00.0") == 0);

    gpu_view_plan(NULL, false, &node, (int[]){3, 1, 3}, 3, &v); /* a repeat: one entry */
    CHECK(v.narrowed);
    CHECK_MSG(strcmp(v.visible, "3,1") == 0, "%s", v.visible);
    CHECK(v.opened[0] == 0 && v.opened[1] == 1 && v.opened[2] == 0);
    CHECK(strcmp(v.bus[1], "0000:28:00.0") == 0);

    /* every GPU asked for, in any order: nothing to leave out */
    gpu_view_plan(NULL, false, &node, (int[]){3, 2, 1, 0}, 4, &v);
    CHECK(!v.narrowed);
    CHECK(v.opened[0] == 3 && v.opened[3] == 0);
}

static void unsure_views_are_the_drivers_own(void)
{
    gpu_view v;
    gpu_node mix = node_of(2, mixed);
    gpu_view_plan(NULL, false, &mix, (int[]){1}, 1, &v); /* "fastest first" may reorder */
    CHECK(!v.narrowed);
    CHECK(v.opened[0] == 1);
    gpu_view_plan(NULL, true, &mix, (int[]){1}, 1, &v); /* CUDA_DEVICE_ORDER=PCI_BUS_ID */
    CHECK(v.narrowed);
    CHECK(strcmp(v.visible, "1") == 0 && v.opened[0] == 0);

    gpu_node none = {0}, one = node_of(1, four_h100);
    gpu_view_plan(NULL, false, &none, (int[]){0}, 1, &v); /* no list: no driver, a container */
    CHECK(!v.narrowed && v.opened[0] == 0);
    gpu_view_plan(NULL, false, &one, (int[]){0}, 1, &v);
    CHECK(!v.narrowed);

    gpu_node node = node_of(4, four_h100);
    gpu_view_plan(NULL, false, &node, (int[]){5}, 1, &v); /* no such GPU: the driver says so */
    CHECK(!v.narrowed && v.opened[0] == 5);
    gpu_node unnamed = node;
    unnamed.model[2][0] = '\0';
    gpu_view_plan(NULL, false, &unnamed, (int[]){1}, 1, &v);
    CHECK(!v.narrowed);
    gpu_node split = node; /* MIG instances: CUDA numbers them, not the GPUs */
    split.mig = true;
    gpu_view_plan(NULL, true, &split, (int[]){1}, 1, &v);
    CHECK(!v.narrowed && v.opened[0] == 1);
    gpu_view_plan("MIG-4f1e,MIG-77aa", false, &split, (int[]){1}, 1, &v); /* a list: kept */
    CHECK(v.narrowed && strcmp(v.visible, "MIG-77aa") == 0);
}

static void environment_entries_are_kept(void)
{
    gpu_node node = node_of(4, four_h100);
    gpu_view v;
    gpu_view_plan("3,1,2", false, &node, (int[]){2, 0}, 2, &v);
    CHECK(v.narrowed);
    CHECK_MSG(strcmp(v.visible, "2,3") == 0, "%s", v.visible);
    CHECK(v.opened[0] == 0 && v.opened[1] == 1);
    CHECK(v.bus[0][0] == '\0'); /* the environment chose it: nothing to check */

    gpu_view_plan("GPU-8932f937-d72c,GPU-1c2d,MIG-GPU-77/1/0", false, &(gpu_node){0}, (int[]){1}, 1,
                  &v);
    CHECK(v.narrowed);
    CHECK(strcmp(v.visible, "GPU-1c2d") == 0);

    const char *unknown[] = {"", "0,,1", "0,x", "0,-1,1", " 1", "GPU-", "0,1234567"};
    for (size_t i = 0; i < sizeof unknown / sizeof *unknown; i++) {
        gpu_view_plan(unknown[i], false, &node, (int[]){0}, 1, &v);
        CHECK_MSG(!v.narrowed, "CUDA_VISIBLE_DEVICES=\"%s\"", unknown[i]);
    }
    gpu_view_plan("1,0", false, &node, (int[]){2}, 1, &v); /* beyond the list */
    CHECK(!v.narrowed && v.opened[0] == 2);
    gpu_view_plan("1", false, &node, (int[]){0}, 1, &v); /* the list is the one asked for */
    CHECK(!v.narrowed);
}

static void write_information(const char *root, const char *bus, const char *model)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", root, bus);
    CHECK(mkdir(path, 0755) == 0);
    snprintf(path, sizeof path, "%s/%s/information", root, bus);
    FILE *f = fopen(path, "w");
    CHECK(f != NULL);
    if (f) {
        fprintf(f, "Model: \t\t %s\nIRQ:   \t\t 17\nBus Location: \t %s\n", model, bus);
        fclose(f);
    }
}

static void node_list_is_read_in_pci_order(void)
{
    char root[] = "/tmp/tmcml_gpu_view_XXXXXX";
    CHECK(mkdtemp(root) != NULL);
    write_information(root, "0000:c1:00.0", "NVIDIA H200");
    write_information(root, "0000:18:00.0", "NVIDIA H100 80GB HBM3");
    gpu_node node;
    gpu_node_read(root, &node);
    CHECK(node.count == 2);
    CHECK(strcmp(node.bus[0], "0000:18:00.0") == 0 && strcmp(node.bus[1], "0000:c1:00.0") == 0);
    CHECK(strcmp(node.model[0], "NVIDIA H100 80GB HBM3") == 0);
    CHECK(strcmp(node.model[1], "NVIDIA H200") == 0);
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
    CHECK(system(cmd) == 0);
    gpu_node_read(root, &node);
    CHECK(node.count == 0);
}

static void make_dir(const char *root, const char *path)
{
    char full[512];
    snprintf(full, sizeof full, "%s/%s", root, path);
    CHECK(mkdir(full, 0755) == 0);
}

static void mig_instances_are_found(void)
{
    char root[] = "/tmp/tmcml_gpu_caps_XXXXXX";
    CHECK(mkdtemp(root) != NULL);
    CHECK(!gpu_node_has_mig(root));
    make_dir(root, "mig"); /* the driver's mig-config capability: no instance */
    make_dir(root, "gpu0");
    make_dir(root, "gpu0/mig");
    CHECK(!gpu_node_has_mig(root));
    make_dir(root, "gpu1");
    make_dir(root, "gpu1/mig");
    make_dir(root, "gpu1/mig/gi2");
    CHECK(gpu_node_has_mig(root));
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
    CHECK(system(cmd) == 0);
    CHECK(!gpu_node_has_mig(root));
}

static void check_compares_the_pci_location(void)
{
    gpu_node node = node_of(4, four_h100);
    gpu_view v;
    gpu_view_plan(NULL, false, &node, (int[]){1}, 1, &v);
    cuda_device_info dev = {.pci_domain = 0, .pci_bus = 0x28, .pci_device = 0};
    tm_error err = {0};
    CHECK(gpu_view_check(&v, 0, 1, &dev, &err));
    dev.pci_bus = 0x18;
    CHECK(!gpu_view_check(&v, 0, 1, &dev, &err));
    CHECK_CONTAINS(err.message, "GPU 1");
    CHECK_CONTAINS(err.message, "0000:18:00");
    CHECK_CONTAINS(err.message, "0000:28:00.0");
    CHECK_CONTAINS(err.message, "CUDA_VISIBLE_DEVICES");
    gpu_view_plan("1,2", false, &node, (int[]){1}, 1, &v); /* the environment's: unchecked */
    CHECK(gpu_view_check(&v, 0, 1, &dev, &err));
}

static void count_follows_the_environment(void)
{
    setenv("CUDA_VISIBLE_DEVICES", "3,1,2", 1);
    CHECK(gpu_view_count() == 3);
    setenv("CUDA_VISIBLE_DEVICES", "0,bogus", 1);
    CHECK(gpu_view_count() == -1);
    unsetenv("CUDA_VISIBLE_DEVICES");
}

int main(void)
{
    unset_environment_uses_the_node_list();
    unsure_views_are_the_drivers_own();
    environment_entries_are_kept();
    node_list_is_read_in_pci_order();
    mig_instances_are_found();
    check_compares_the_pci_location();
    count_follows_the_environment();
    return check_summary("test_gpu_view");
}
