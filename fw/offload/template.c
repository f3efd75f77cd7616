/* Prebuilt order frames (see template.h). */
#include "offload/template.h"

#include <stddef.h>
#include <string.h>

#include "fix/app.h"
#include "fix/codec.h"
#include "net/net_util.h"

#define DAY_MS 86400000ull

static void put16(uint8_t *p, uint16_t v) {
    p[0] = (uint8_t)(v >> 8);
    p[1] = (uint8_t)v;
}

static void put32(uint8_t *p, uint32_t v) {
    p[0] = (uint8_t)(v >> 24);
    p[1] = (uint8_t)(v >> 16);
    p[2] = (uint8_t)(v >> 8);
    p[3] = (uint8_t)v;
}

static uint16_t ip_checksum(const uint8_t *ip) { return net_csum_fold(net_csum_add(0, ip, OFL_IP_HDR)); }

static uint16_t tcp_checksum(const uint8_t *frame, size_t len) {
    const uint8_t *ip = frame + OFL_ETH_HDR;
    uint32_t src = ((uint32_t)ip[12] << 24) | ((uint32_t)ip[13] << 16) | ((uint32_t)ip[14] << 8) | ip[15];
    uint32_t dst = ((uint32_t)ip[16] << 24) | ((uint32_t)ip[17] << 16) | ((uint32_t)ip[18] << 8) | ip[19];
    size_t l4 = len - OFL_ETH_HDR - OFL_IP_HDR;
    uint32_t sum = net_csum_pseudo(src, dst, 6, (uint16_t)l4);
    return net_csum_fold(net_csum_add(sum, frame + OFL_ETH_HDR + OFL_IP_HDR, l4));
}

/* Offset of "<SOH>tag=" + its length within the FIX message, or -1. */
static int find_field(const uint8_t *m, size_t n, const char *pat) {
    size_t k = strlen(pat);
    for (size_t i = 0; i + k <= n; i++)
        if (memcmp(m + i, pat, k) == 0) return (int)(i + k);
    return -1;
}

/* Ethernet II, IPv4 (id 0, DF, TTL 64) and TCP (seq/ack/window 0, PSH|ACK, FIN if t->fin) around the t->fix_len
 * payload bytes already at OFL_FIX_OFF; the stored checksums go into t. */
static void put_headers(ofl_template_t *t, const ofl_conn_t *c) {
    uint8_t *f = t->frame;
    memcpy(f, c->dst_mac, 6);
    memcpy(f + 6, c->src_mac, 6);
    put16(f + 12, 0x0800);
    uint8_t *ip = f + OFL_ETH_HDR;
    memset(ip, 0, OFL_IP_HDR + OFL_TCP_HDR);
    ip[0] = 0x45;
    put16(ip + 2, (uint16_t)(OFL_IP_HDR + OFL_TCP_HDR + t->fix_len));
    put16(ip + 6, 0x4000);
    ip[8] = 64;
    ip[9] = 6;
    put32(ip + 12, c->src_ip);
    put32(ip + 16, c->dst_ip);
    t->ip_csum = ip_checksum(ip);
    put16(ip + 10, t->ip_csum);
    uint8_t *tcp = ip + OFL_IP_HDR;
    put16(tcp, c->src_port);
    put16(tcp + 2, c->dst_port);
    tcp[12] = 0x50;
    tcp[13] = (uint8_t)(0x10 | (t->fix_len ? 0x08 : 0) | (t->fin ? 0x01 : 0)); /* ACK, PSH with data, FIN */
    t->tcp_csum = tcp_checksum(f, t->len);
    put16(tcp + 16, t->tcp_csum);
}

int ofl_build_template(ofl_template_t *t, const ofl_order_spec_t *s) {
    unsigned width = s->msgseq_width ? s->msgseq_width : OFL_MSGSEQ_WIDTH_DEFAULT;
    if (width > 10 || !s->sender || !s->target || !s->account || !s->clordid || !s->symbol ||
        (s->side != '1' && s->side != '2'))
        return OFL_E_ARG;
    memset(t, 0, sizeof *t);
    uint8_t *f = t->frame;
    /* FIX message first (its length sets the IPv4/TCP lengths) */
    uint64_t day = s->utc_day_ms - s->utc_day_ms % DAY_MS;
    fix_builder_t b;
    fix_build_begin(&b, f + OFL_FIX_OFF, OFL_TEMPLATE_MAX - OFL_FIX_OFF, "D");
    fix_build_uint_padded(&b, 34, 0, width);
    fix_build_str(&b, 49, s->sender);
    fix_build_utc(&b, 52, day);
    fix_build_str(&b, 56, s->target);
    fix_app_put_nos_body(&b, s->account, s->clordid, s->qty, s->qty_dec, s->price, s->price_dec, s->side, s->symbol,
                         day);
    size_t n = fix_build_end(&b);
    if (n == 0) return OFL_E_TOO_LONG;
    const uint8_t *m = f + OFL_FIX_OFF;
    int o34 = find_field(m, n, "\x01" "34=");
    int o52 = find_field(m, n, "\x01" "52=");
    int o60 = find_field(m, n, "\x01" "60=");
    int o10 = find_field(m, n, "\x01" "10=");
    if (o34 < 0 || o52 < 0 || o60 < 0 || o10 < 0) return OFL_E_ARG; /* cannot happen: we built it */
    t->fix_len = (uint16_t)n;
    t->len = (uint16_t)(OFL_FIX_OFF + n);
    t->msg_off = (uint8_t)(OFL_FIX_OFF + o34);
    t->msg_width = (uint8_t)width;
    t->st_off = (uint8_t)(OFL_FIX_OFF + o52 + 9); /* after "YYYYMMDD-" */
    t->tt_off = (uint8_t)(OFL_FIX_OFF + o60 + 9);
    t->cs_off = (uint8_t)(OFL_FIX_OFF + o10);
    t->fix_sum = fix_checksum(m, (size_t)o10 - 3);
    memcpy(f + t->cs_off, "000", 3); /* the engine writes fix_sum + its digits over 0s */
    t->day_ms = day;
    t->msg_mode = OFL_MSG_NUMBERED;
    t->st_en = t->tt_en = true;
    put_headers(t, &s->conn);
    return OFL_OK;
}

int ofl_build_frame(ofl_template_t *t, const ofl_conn_t *c, const uint8_t *fix, size_t n, unsigned mode, bool fin) {
    if (!t || !c || mode > OFL_MSG_NONE || (mode == OFL_MSG_NONE) != (n == 0) || (n && !fix)) return OFL_E_ARG;
    if (n > OFL_FRAME_MAX - OFL_FIX_OFF) return OFL_E_TOO_LONG;
    uint8_t *m = t->frame + OFL_FIX_OFF;
    if (n && fix != m) memmove(m, fix, n); /* (fix may be where the message goes: built there) */
    /* (put_headers writes every header byte; nothing reads past len) */
    memset((uint8_t *)t + offsetof(ofl_template_t, len), 0, sizeof *t - offsetof(ofl_template_t, len));
    t->len = (uint16_t)(OFL_FIX_OFF + n);
    t->fix_len = (uint16_t)n;
    t->msg_mode = (uint8_t)mode;
    t->fin = fin;
    if (n) {
        /* a whole message: 8=... first, and "<SOH>10=ddd<SOH>" last */
        if (n < 16 || m[0] != '8' || m[1] != '=' || memcmp(m + n - 8, "\x01" "10=", 4) != 0 || m[n - 1] != 1) return OFL_E_ARG;
        for (size_t i = n - 4; i < n - 1; i++)
            if (m[i] < '0' || m[i] > '9') return OFL_E_ARG;
        t->cs_off = (uint16_t)(OFL_FIX_OFF + n - 4);
        t->fix_sum = fix_checksum(m, n - 7);
        memcpy(m + n - 4, "000", 3);
        if (mode == OFL_MSG_NUMBERED) {
            int o34 = find_field(m, n - 7, "\x01" "34=");
            if (o34 < 0) return OFL_E_ARG;
            unsigned w = 0;
            while ((size_t)o34 + w < n && m[o34 + w] == '0') w++;
            if (w == 0 || w > 10 || m[o34 + w] != 1) return OFL_E_ARG;   /* the placeholder: 1..10 '0's */
            t->msg_off = (uint16_t)(OFL_FIX_OFF + o34);
            t->msg_width = (uint8_t)w;
        }
    }
    put_headers(t, c);
    return OFL_OK;
}

static void put_digits(uint8_t *p, uint32_t v, unsigned width) {
    for (unsigned i = width; i-- > 0;) {
        p[i] = (uint8_t)('0' + v % 10u);
        v /= 10u;
    }
}

/* HH:MM:SS.sss */
static void put_tod(uint8_t *p, uint32_t tod_ms) {
    uint32_t s = tod_ms / 1000u;
    put_digits(p, s / 3600u, 2);
    put_digits(p + 3, s / 60u % 60u, 2);
    put_digits(p + 6, s % 60u, 2);
    put_digits(p + 9, tod_ms % 1000u, 3);
}

size_t ofl_materialize(const ofl_template_t *t, const ofl_patch_t *p, uint8_t *out) {
    const bool numbered = t->msg_mode == OFL_MSG_NUMBERED, timed = t->st_en || t->tt_en;
    uint64_t limit = 1;
    for (unsigned i = 0; i < t->msg_width; i++) limit *= 10u;
    if ((numbered && p->msgseq >= limit) || (timed && p->tod_ms >= DAY_MS) || t->len == 0) return 0;
    memmove(out, t->frame, t->len); /* out may be t->frame */
    uint8_t *ip = out + OFL_ETH_HDR, *tcp = ip + OFL_IP_HDR, *m = out + OFL_FIX_OFF;
    put16(ip + 4, p->ip_id);
    put16(ip + 10, 0);
    put16(ip + 10, ip_checksum(ip));
    put32(tcp + 4, p->seq);
    put32(tcp + 8, p->ack);
    put16(tcp + 14, p->window);
    if (numbered) put_digits(out + t->msg_off, p->msgseq, t->msg_width);
    if (t->st_en) put_tod(out + t->st_off, p->tod_ms);
    if (t->tt_en) put_tod(out + t->tt_off, p->tod_ms);
    if (t->msg_mode != OFL_MSG_NONE) {
        size_t cs_at = (size_t)(t->cs_off - OFL_FIX_OFF);
        put_digits(out + t->cs_off, fix_checksum(m, cs_at - 3), 3);
    }
    put16(tcp + 16, 0);
    put16(tcp + 16, tcp_checksum(out, t->len));
    return t->len;
}
