// The loader behind CSHARE_LIBRARY (include/CShareLibrary.h): the only place that includes the libc
// headers it needs, so they stay out of every wrapper module.
#include "CShareLibrary.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

void CShareLibrary_open(
    const char *_Nonnull soname, const char *_Nonnull package, const char *_Nonnull const *_Nonnull names,
    size_t count, void *_Nullable *_Nonnull slots) {
    void *library = dlopen(soname, RTLD_NOW | RTLD_LOCAL);
    for (size_t index = 0; library != NULL && index < count; index++) {
        slots[index] = dlsym(library, names[index]);
        if (slots[index] == NULL) library = NULL;
    }
    if (library == NULL) {
        const char *reason = dlerror();
        fprintf(stderr,
                "Error: share cannot load %s (%s). Install Debian's package %s (apt install %s), or reinstall share.\n",
                soname, reason != NULL ? reason : "unknown reason", package, package);
        exit(1);
    }
}
