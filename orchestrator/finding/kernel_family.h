/* The one kernel-family rule of the project (docs/findings.md "Kernel
 * family"): a kernel name reduced to what identifies the kernel, the same
 * for its mangled and demangled spellings. finding.json's kernel_family,
 * the failure signature and the history site all use it. Pure. */
#ifndef HRR_FINDING_KERNEL_FAMILY_H
#define HRR_FINDING_KERNEL_FAMILY_H

#include <stdbool.h>

#include "common/strbuf.h"

/* Appends the family of kernel to out; appends nothing for NULL, an empty
 * name or one with no name in it. Returns whether it appended.
 *   hipBLASLt/Tensile "Cijk_Ailk_Bljk_BBS_BH_..._MT256x256x64_MI16x16x1_SK3_..."
 *       -> "hipblaslt_gemm/Ailk_Bljk/BBS_BH/MT256x256x64/MI16x16x1/streamk"
 *   Composable Kernel (ck::, ck_tile::) -> the function and its first
 *       named template argument: "ck_tile::kentry/FmhaFwdKernel"
 *   anything else -> the qualified function name without return type,
 *       template arguments, parameters or a hash suffix:
 *       "at::native::vectorized_elementwise_kernel" */
bool kernel_family_append(const char *kernel, struct strbuf *out);
/* The same, newly allocated; NULL when there is none. */
char *kernel_family(const char *kernel);

#endif
