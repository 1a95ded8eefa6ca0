/*
 * The sRGB profile tiler slice embeds in the pyramidal TIFFs it writes, so that readers that honour profiles see the
 * colour space the tiles are in. lcms builds it; nothing is read from disk.
 */
#include "CLCMS.h"

#include <lcms2.h>
#include <stdlib.h>

int tiler_lcms_srgb_profile(unsigned char **out, size_t *length) {
    *out = NULL;
    *length = 0;
    cmsHPROFILE profile = cmsCreate_sRGBProfile();
    if (profile == NULL) return -1;
    cmsUInt32Number size = 0;
    int ok = cmsSaveProfileToMem(profile, NULL, &size) && size > 0;
    if (ok) {
        *out = malloc(size);
        ok = *out != NULL && cmsSaveProfileToMem(profile, *out, &size);
    }
    cmsCloseProfile(profile);
    if (!ok) {
        free(*out);
        *out = NULL;
        return -1;
    }
    *length = size;
    return 0;
}
