/* Machine protocol: request parser and reply/event writer (see mproto.h, docs/PROTOCOL.md). */
#include "lib/mproto.h"

#include <stdarg.h>
#include <string.h>

#include "fix/codec.h"
#include "lib/udiv.h"

static char *skip_ws(char *p) {
    while (*p == ' ' || *p == '\t') p++;
    return p;
}

/* A string at p (on the opening quote): cuts it in place, returns the character after the closing quote. */
static char *read_string(char *p, const char **out) {
    if (*p != '"') return NULL;
    *out = ++p;
    while (*p != '"') {
        if (*p == '\\' || (unsigned char)*p < 0x20 || (unsigned char)*p > 0x7e) return NULL; /* also the end */
        p++;
    }
    *p = '\0';
    return p + 1;
}

int mp_parse(char *line, mp_req_t *r) {
    memset(r, 0, sizeof *r);
    r->id = -1;
    char *p = skip_ws(line);
    if (*p++ != '{') return MP_E_JSON;
    p = skip_ws(p);
    if (*p == '}') p++;
    else
        for (;;) {
            if (r->n == MP_MAX_FIELDS) return MP_E_FIELDS;
            mp_field_t *f = &r->f[r->n];
            p = read_string(p, &f->key);
            if (!p) return MP_E_JSON;
            p = skip_ws(p);
            if (*p++ != ':') return MP_E_JSON;
            p = skip_ws(p);
            char *end;
            if (*p == '"') {
                end = read_string(p, &f->text);
                if (!end) return MP_E_JSON;
                f->type = 's';
            } else {
                /* an integer: [0-9]+ up to 2^31-1 (no 64-bit arithmetic) */
                uint32_t v = 0;
                for (end = p; *end >= '0' && *end <= '9'; end++) {
                    uint32_t d = (uint32_t)(*end - '0');
                    if (v > (0x7fffffffu - d) / 10u) return MP_E_JSON;
                    v = v * 10u + d;
                }
                if (end == p) return MP_E_JSON;
                f->type = 'i';
                f->num = (int32_t)v;
                f->text = p;
            }
            p = skip_ws(end);
            char sep = *p;
            *end = '\0'; /* cuts a number or a literal (a string was cut at its quote) */
            p++;
            for (unsigned i = 0; i < r->n; i++)
                if (strcmp(r->f[i].key, f->key) == 0) return MP_E_JSON; /* duplicate key */
            r->n++;
            if (strcmp(f->key, "id") == 0 && f->type == 'i' && f->num >= 0) r->id = f->num;
            if (sep == '}') break;
            if (sep != ',') return MP_E_JSON;
            p = skip_ws(p);
        }
    if (*skip_ws(p) != '\0') return MP_E_JSON;
    if (r->id < 0) return MP_E_ID;
    r->cmd = mp_get_str(r, "cmd");
    return r->cmd ? MP_OK : MP_E_CMD;
}

const char *mp_err_code(int err) {
    static const char *const codes[] = {"ok", "bad_json", "too_many_fields", "bad_id", "bad_cmd"};
    return (unsigned)err < sizeof codes / sizeof codes[0] ? codes[err] : "?";
}

const mp_field_t *mp_get(const mp_req_t *r, const char *key) {
    for (unsigned i = 0; i < r->n; i++)
        if (strcmp(r->f[i].key, key) == 0) return &r->f[i];
    return NULL;
}

const char *mp_get_str(const mp_req_t *r, const char *key) {
    const mp_field_t *f = mp_get(r, key);
    return f && f->type == 's' ? f->text : NULL;
}

bool mp_get_int(const mp_req_t *r, const char *key, int32_t *out) {
    const mp_field_t *f = mp_get(r, key);
    if (!f || f->type != 'i') return false;
    *out = f->num;
    return true;
}

/* ---- output ---- */

unsigned mp_decimals;
int32_t mp_result;
bool mp_in_request;

static struct {
    void (*write)(const char *s, size_t n);
    void (*line_start)(void);
    uint32_t seq;
} out;

void mp_out_init(void (*write)(const char *s, size_t n), void (*line_start)(void)) {
    out.write = write;
    out.line_start = line_start;
}

static void put(const char *s) { out.write(s, strlen(s)); }

static void put_u32(uint32_t v) {
    char buf[11];
    int i = sizeof buf;
    do {
        uint32_t q = tf_div10(v);
        buf[--i] = (char)('0' + v - q * 10u);
        v = q;
    } while (v);
    out.write(buf + i, sizeof buf - (size_t)i);
}

/* A JSON string: what needs no escape written a run at a time, anything else as '?'. */
static void put_str(const char *v) {
    put("\"");
    while (*v) {
        size_t k = 0;
        for (unsigned char c; (c = (unsigned char)v[k]) >= 0x20 && c <= 0x7e && c != '"' && c != '\\'; k++) {
        }
        if (k) out.write(v, k);
        v += k;
        if (*v) {
            put("?");
            v++;
        }
    }
    put("\"");
}

/* Writes the members of spec. */
static void members(const char *spec, va_list ap) {
    while (*spec) {
        if (*spec == ' ') {
            spec++;
            continue;
        }
        put(",\"");
        const char *colon = strchr(spec, ':');
        out.write(spec, (size_t)(colon - spec));
        put("\":");
        char t = colon[1];
        spec = colon + 2;
        if (t == 's') put_str(va_arg(ap, const char *));
        else if (t == 'b') put(va_arg(ap, int) ? "true" : "false");
        else if (t == 'p') {
            char buf[24];
            buf[fix_fmt_decimal(buf, va_arg(ap, int64_t), mp_decimals)] = '\0';
            put_str(buf);
        } else {
            uint32_t v = va_arg(ap, uint32_t);
            if (t == 'i' && (int32_t)v < 0) {
                put("-");
                v = 0u - v;
            }
            put_u32(v);
        }
    }
}

/* Writes the members of spec, then ends the record and the line. */
static void fields(const char *spec, va_list ap) {
    members(spec, ap);
    put("}\r\n");
}

static void begin(void) {
    if (out.line_start) out.line_start();
    put("@{");
}

void mp_reply(int32_t id, const char *spec, ...) {
    va_list ap;
    va_start(ap, spec);
    begin();
    put("\"id\":");
    put_u32((uint32_t)id);
    put(",\"ok\":true");
    fields(spec, ap);
    va_end(ap);
}

static void error_fields(const char *spec, ...) {
    va_list ap;
    va_start(ap, spec);
    fields(spec, ap);
    va_end(ap);
}

void mp_error(int32_t id, const char *code, const char *msg) {
    begin();
    put("\"id\":");
    if (id < 0) put("null");
    else put_u32((uint32_t)id);
    put(",\"ok\":false");
    error_fields("error:s msg:s", code, msg);
}

void mp_event_open(const char *name) {
    begin();
    put("\"ev\":");
    put_str(name);
    put(",\"seq\":");
    put_u32(++out.seq);
}

void mp_event(const char *name, const char *spec, ...) {
    va_list ap;
    va_start(ap, spec);
    mp_event_open(name);
    fields(spec, ap);
    va_end(ap);
}

void mp_members(const char *spec, ...) {
    va_list ap;
    va_start(ap, spec);
    members(spec, ap);
    va_end(ap);
}

void mp_member_u(const char *key, uint32_t v) {
    put(",");
    put_str(key);
    put(":");
    put_u32(v);
}

void mp_event_close(void) { put("}\r\n"); }

uint32_t mp_event_seq(void) { return out.seq; }
