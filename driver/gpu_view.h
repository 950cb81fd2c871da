/* The GPUs the CUDA driver sees: only those a run opens.
 *
 * cuInit initialises every GPU it can see, one after the other: 0.12 s a GPU
 * on a node of two H200s (bench/results_gpu.md), so a run on one GPU of a
 * node of eight would spend ~0.85 s on seven GPUs it never opens.  Before
 * the driver is loaded, `tmcml run` therefore narrows CUDA_VISIBLE_DEVICES
 * to the GPUs it was asked for, which then have the driver's ordinals 0, 1,
 * ...; it says the GPUs by the numbers the user gave. */
#ifndef TMCML_DRIVER_GPU_VIEW_H
#define TMCML_DRIVER_GPU_VIEW_H

#include <stdbool.h>
#include <stddef.h>

#include "driver_options.h"
#include "cuda_driver.h"
#include "error.h"

#define GPU_NODE_MAX 64

/* The node's GPUs as the NVIDIA driver lists them (/proc/driver/nvidia/gpus),
 * in PCI order, which is nvidia-smi's and CUDA_VISIBLE_DEVICES's. */
typedef struct gpu_node {
    int count;
    char bus[GPU_NODE_MAX][32];   /* "0000:18:00.0" */
    char model[GPU_NODE_MAX][96]; /* "NVIDIA H100 80GB HBM3" */
    bool mig; /* a GPU is split into MIG instances, which CUDA numbers instead of it */
} gpu_node;

typedef struct gpu_view {
    bool narrowed; /* CUDA_VISIBLE_DEVICES is to be `visible` */
    char visible[1024];
    int opened[DRIVER_MAX_GPUS];   /* the driver's ordinal of each GPU asked for */
    char bus[DRIVER_MAX_GPUS][32]; /* where it sits, when the node's list chose it ("" else) */
} gpu_view;

/* Reads the node's list under root ("/proc/driver/nvidia/gpus"); count 0
 * when there is none (no driver, or a container without it).  mig is left
 * false: gpu_node_has_mig says it. */
void gpu_node_read(const char *root, gpu_node *node);
/* Whether the driver's capabilities under caps ("/proc/driver/nvidia/
 * capabilities") hold a MIG GPU instance (gpuN/mig/giM) of any GPU. */
bool gpu_node_has_mig(const char *caps);

/* The view for devices[0 .. n-1] (the driver's ordinals as the user named
 * them; repeats allowed), given CUDA_VISIBLE_DEVICES (NULL: unset), whether
 * CUDA_DEVICE_ORDER is PCI_BUS_ID, and the node's list.  Narrowed only
 * where the narrowed ordinals surely name the same GPUs:
 * - CUDA_VISIBLE_DEVICES set: its entries are the driver's devices in the
 *   order given, so the entries of the GPUs asked for are kept, each an
 *   index or a GPU-/MIG- identifier;
 * - unset: the driver numbers the GPUs in PCI order when it is asked to, or
 *   when they are all of one model (its "fastest first" cannot tell them
 *   apart), and the node's list gives that order; not where a GPU is split
 *   into MIG instances (CUDA then numbers the instances).
 * Otherwise, or when nothing would be left out, the view is the driver's
 * own (opened = devices). */
void gpu_view_plan(const char *visible_env, bool pci_order, const gpu_node *node,
                   const int *devices, int n, gpu_view *view);

/* The plan for this process (its environment, the node's list; not under
 * the Multi-Process Service, whose server numbers the GPUs itself), and
 * CUDA_VISIBLE_DEVICES narrowed.  Call it before anything loads the CUDA
 * driver, from the only thread. */
void gpu_view_apply(const int *devices, int n, gpu_view *view);

/* How many GPUs the driver would see, from this process's environment and
 * the node's list, without loading it; -1 when they do not say. */
int gpu_view_count(void);

/* The GPU opened for devices[i] sits where the node's list said: false
 * with a message saying which GPUs differ. */
bool gpu_view_check(const gpu_view *view, int i, int asked, const cuda_device_info *dev,
                    tm_error *err);

#endif
