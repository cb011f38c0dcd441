/* acl_base.h helpers and runtime facts: version, run mode, SoC name, element sizes, float16
 * conversion (every binary16 value round-trips; rounding is to nearest even). */
#include <math.h>

#include "rt_check.h"

static float bits_to_float(uint32_t b)
{
    float f;
    memcpy(&f, &b, sizeof f);
    return f;
}

int main(void)
{
    int32_t major = 0, minor = 0, patch = -1;
    EXPECT_OK(aclrtGetVersion(&major, &minor, &patch));
    EXPECT(major == ACL_MAJOR_VERSION && minor == ACL_MINOR_VERSION && patch == ACL_PATCH_VERSION,
           "version %d.%d.%d", major, minor, patch);
    EXPECT_CODE(aclrtGetVersion(NULL, &minor, &patch), ACL_ERROR_INVALID_PARAM);
    aclrtRunMode mode = ACL_DEVICE;
    EXPECT_OK(aclrtGetRunMode(&mode));
    EXPECT(mode == ACL_HOST, "run mode %d", mode);
    const char *soc = aclrtGetSocName();
    EXPECT(soc && strncmp(soc, "Ascend", 6) == 0, "SoC name %s", soc ? soc : "NULL");

    EXPECT(aclDataTypeSize(ACL_FLOAT) == 4 && aclDataTypeSize(ACL_FLOAT16) == 2 &&
           aclDataTypeSize(ACL_BF16) == 2 && aclDataTypeSize(ACL_DOUBLE) == 8 &&
           aclDataTypeSize(ACL_INT8) == 1 && aclDataTypeSize(ACL_BOOL) == 1 &&
           aclDataTypeSize(ACL_INT64) == 8 && aclDataTypeSize(ACL_UINT32) == 4 &&
           aclDataTypeSize(ACL_COMPLEX64) == 8 && aclDataTypeSize(ACL_COMPLEX128) == 16 &&
           aclDataTypeSize(ACL_DT_UNDEFINED) == 0 && aclDataTypeSize(ACL_STRING) == 0,
           "aclDataTypeSize");

    /* Known conversions. */
    EXPECT(aclFloatToFloat16(1.0f) == 0x3C00 && aclFloatToFloat16(-2.0f) == 0xC000, "1.0 / -2.0");
    EXPECT(aclFloatToFloat16(65504.0f) == 0x7BFF, "max half");
    EXPECT(aclFloatToFloat16(65519.99f) == 0x7BFF && aclFloatToFloat16(65520.0f) == 0x7C00, "overflow edge");
    EXPECT(aclFloatToFloat16(0.1f) == 0x2E66, "0.1 -> 0x%04x", aclFloatToFloat16(0.1f));
    EXPECT(aclFloatToFloat16(ldexpf(1.0f, -24)) == 0x0001, "smallest subnormal");
    EXPECT(aclFloatToFloat16(ldexpf(1.0f, -25)) == 0x0000, "half of it ties to even (0)");
    EXPECT(aclFloatToFloat16(ldexpf(3.0f, -25)) == 0x0002, "1.5 units ties to even (2)");
    EXPECT(aclFloatToFloat16(1.0f + ldexpf(1.0f, -11)) == 0x3C00, "tie at 1 + 2^-11 to even");
    EXPECT(aclFloatToFloat16(1.0f + ldexpf(3.0f, -11)) == 0x3C02, "tie at 1 + 3*2^-11 to even");
    EXPECT(aclFloatToFloat16(-0.0f) == 0x8000 && aclFloatToFloat16(INFINITY) == 0x7C00, "-0, inf");
    EXPECT(isnan(aclFloat16ToFloat(aclFloatToFloat16(NAN))), "nan");
    EXPECT(aclFloat16ToFloat(0x3555) == bits_to_float(0x3EAAA000u), "0x3555 -> 0.333252");
    /* Every finite and infinite binary16 value round-trips exactly. */
    int bad = 0;
    for (uint32_t h = 0; h <= 0xFFFF; h++) {
        if ((h & 0x7C00) == 0x7C00 && (h & 0x3FF)) continue; /* NaN payloads are quieted */
        if (aclFloatToFloat16(aclFloat16ToFloat((aclFloat16)h)) != h) bad++;
    }
    EXPECT(bad == 0, "%d binary16 values do not round-trip", bad);
    return rt_check_summary("rt_misc");
}
