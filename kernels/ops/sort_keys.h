/* Unsigned 32-bit keys whose order is the order of float32 / int32 / uint32 values, shared by
 * the sorting (sort.c) and set (set_ops.c) operators. */
#ifndef NPUSIM_SORT_KEYS_H
#define NPUSIM_SORT_KEYS_H

#include <stdint.h>
#include <string.h>

/* A float's ascending key, branch-free (so that loops of it vectorise): the bits with the sign
 * folded (negatives complemented, positives' sign bit set), every NaN the largest key, -0.0
 * that of +0.0. */
static inline uint32_t float_key(float f)
{
    uint32_t bits;
    memcpy(&bits, &f, sizeof bits);
    uint32_t magnitude = bits & 0x7fffffffu, key = bits ^ ((uint32_t)((int32_t)bits >> 31) | (1u << 31));
    key = magnitude == 0 ? 1u << 31 : key;
    return magnitude > 0x7f800000u ? UINT32_MAX : key;
}

#define FLOAT_KEY_ZERO (1u << 31)
#define FLOAT_KEY_NAN UINT32_MAX

/* The float32 bits of a key float_key made (not a NaN's or a zero's: those keys fold several). */
static inline uint32_t float_of_key(uint32_t key)
{
    return key >> 31 ? key & 0x7fffffffu : ~key;
}

#endif /* NPUSIM_SORT_KEYS_H */
