/* fuzz/ref_parse.h - the reference of fix_parse for fuzz_codec: the tokeniser as it was before the receive path
 * was rewritten for speed (field by field with the slot index checked for a tag seen twice), kept here unchanged
 * so that the fuzzer compares the two on every input (fields, errors, CheckSum sum, duplicate mask, slot index).
 * Input: any bytes. Output: a fix_msg_t filled as fix_parse documents. */
#ifndef TF_FUZZ_REF_PARSE_H
#define TF_FUZZ_REF_PARSE_H

#include <stdbool.h>

#include "fix/codec.h"

static void ref_parse_fields(fix_msg_t *m, const uint8_t *p, const uint8_t *end)
{
    uint32_t sum = m->sum, dup = 0;
    unsigned n = 0;
    while (p < end) {
        const uint8_t *start = p;
        uint32_t tag = 0, c = *p;
        bool bad = false;
        if (c != '=' && c != FIX_SOH) {
            do {
                uint32_t d = c - '0';
                sum += c;
                if (d > 9 || tag > 99999999u) bad = true;
                else tag = tag * 10u + d;
                c = *++p;
            } while (c != '=' && c != FIX_SOH);
        }
        if (p == start || tag == 0 || c != '=') bad = true;
        if (bad) {
            if (!m->err) {
                m->err = FIX_PERR_BAD_TAG;
                m->err_tag = 0;
            }
            while ((c = *p) != FIX_SOH) {
                sum += c;
                p++;
            }
            sum += FIX_SOH;
            p++;
            continue;
        }
        sum += '=';
        const uint8_t *v = ++p;
        c = *p;
        if (c != FIX_SOH) {
            do {
                sum += c;
                c = *++p;
            } while (c != FIX_SOH);
        }
        if (p == v && !m->err) {
            m->err = FIX_PERR_EMPTY_VALUE;
            m->err_tag = tag;
        }
        if (tag == 10 && p + 1 < end) { /* CheckSum must be the last field */
            m->err = FIX_PERR_CHECKSUM_NOT_LAST;
            m->err_tag = 10;
        }
        if (n >= FIX_MAX_FIELDS) {
            if (!m->err) {
                m->err = FIX_PERR_TOO_MANY_FIELDS;
                m->err_tag = tag;
            }
            while (p < end) sum += *p++; /* the CheckSum still covers the rest */
            break;
        }
        sum += FIX_SOH;
        fix_field_t *fl = &m->f[n];
        fl->tag = tag;
        fl->val = (const char *)v;
        fl->len = (uint16_t)(p - v);
        int k = fix_tag_slot(tag);
        if (k >= 0) {
            unsigned j = m->idx[k];
            if (j < n && m->f[j].tag == tag) dup |= k < 32 ? 1u << k : 0u;
            else m->idx[k] = (uint8_t)n;
        }
        n++;
        p++;
    }
    m->n = (uint16_t)n;
    m->sum = sum;
    m->dup = dup;
}

static int ref_fix_parse(fix_msg_t *m, const uint8_t *buf, size_t len)
{
    m->n = 0;
    m->err = FIX_PERR_NONE;
    m->err_tag = 0;
    m->raw = buf;
    m->raw_len = len;
    m->sum = 0;
    m->dup = 0;
    /* Fields up to the last SOH; what follows it is an unterminated field. */
    size_t lim = len;
    while (lim && buf[lim - 1] != FIX_SOH) lim--;
    if (lim) ref_parse_fields(m, buf, buf + lim);
    if (lim < len && m->err != FIX_PERR_TOO_MANY_FIELDS) {
        /* The unterminated tail: a bad tag unless it is "tag=" plus a value, which is truncated. */
        const uint8_t *p = buf + lim, *end = buf + len;
        uint32_t tag = 0;
        bool bad = false;
        for (; p < end && *p != '='; p++) {
            uint32_t d = (uint32_t)*p - '0';
            if (d > 9 || tag > 99999999u) bad = true;
            else tag = tag * 10u + d;
        }
        if (!m->err) {
            if (p == buf + lim || tag == 0 || p >= end || bad) {
                m->err = FIX_PERR_BAD_TAG;
                m->err_tag = 0;
            } else {
                m->err = FIX_PERR_TRUNCATED;
                m->err_tag = tag;
            }
        }
    }
    for (size_t i = lim; i < len; i++) m->sum += buf[i];
    return m->err ? FIX_E_FORMAT : FIX_OK;
}

#endif
