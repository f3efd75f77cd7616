/* Machine protocol on the console UART (docs/PROTOCOL.md): one JSON object per line, each line marked by a
 * leading '@' so that machine lines and the human console never share a line. Transport-agnostic: the
 * parser works on a line in place; replies and events go out through a write callback.
 *
 * Requests are a restricted JSON subset, enough for flat commands and small enough for the firmware:
 * one flat object; keys and string values of printable ASCII without '"' or '\' (no escapes); integers
 * 0..2147483647 without sign, fraction or exponent (prices travel as decimal strings). No nesting, no
 * arrays, no true/false/null, no duplicate keys, at most MP_MAX_FIELDS members. Anything else is refused
 * with an error reply and changes nothing.
 * Out: replies "@{"id":N,"ok":true,...}" or "@{"id":N,"ok":false,"error":"<code>","msg":"..."}" (id null
 * when the request's id could not be read), and events "@{"ev":"<name>","seq":N,...}" with N counting up
 * from 1 at boot, so that a client sees whether it missed one. */
#ifndef TF_LIB_MPROTO_H
#define TF_LIB_MPROTO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define MP_VERSION 1
#define MP_MAX_FIELDS 8

typedef struct {
    const char *key;
    const char *text; /* the string's characters, or an integer's digits */
    int32_t num;      /* the integer */
    char type;        /* 's' string, 'i' integer */
} mp_field_t;

typedef struct {
    mp_field_t f[MP_MAX_FIELDS];
    unsigned n;
    int32_t id;  /* -1 until an "id" member was read */
    const char *cmd;
} mp_req_t;

/* Parse results; mp_err_code() names them for the error reply. */
enum { MP_OK = 0, MP_E_JSON, MP_E_FIELDS, MP_E_ID, MP_E_CMD };

/* Parses a request (the text after the '@'), in place: strings are cut out of `line`. Needs a non-negative
 * integer "id" and a string "cmd". On failure r->id holds the id if it had been read (else -1). */
int mp_parse(char *line, mp_req_t *r);
const char *mp_err_code(int err);

/* Members by name: NULL / false when absent or of another type. */
const mp_field_t *mp_get(const mp_req_t *r, const char *key);
const char *mp_get_str(const mp_req_t *r, const char *key);
bool mp_get_int(const mp_req_t *r, const char *key, int32_t *out);

/* ---- output ---- */
/* Members are written from a spec, "key:T key:T ...", one argument per member by its type T:
 *   s  const char * (a string; '"', '\\' and controls are written as '?')     u  uint32_t     i  int32_t
 *   b  int (true/false)     p  int64_t, a price in fixed point written as a decimal string with mp_decimals */
extern unsigned mp_decimals; /* implied decimals of 'p' members (the FIX client's price decimals) */
extern int32_t mp_result;    /* set by a command that creates something (a stop's or an order's number) */
/* write: where lines go; line_start: called before each line, to end a partial human line first (may be NULL). */
void mp_out_init(void (*write)(const char *s, size_t n), void (*line_start)(void));
void mp_reply(int32_t id, const char *spec, ...);              /* @{"id":N,"ok":true,...} */
void mp_error(int32_t id, const char *code, const char *msg);  /* @{"id":N,"ok":false,"error":code,"msg":msg} (id < 0: null) */
void mp_event(const char *name, const char *spec, ...);       /* @{"ev":"name","seq":N,...} */
/* An event whose members are not known at compile time (a table of counters): mp_event_open, then any number of
 * mp_members (spec as above) and mp_member_u (a key made at run time), then mp_event_close. */
void mp_event_open(const char *name);                         /* @{"ev":"name","seq":N */
void mp_members(const char *spec, ...);
void mp_member_u(const char *key, uint32_t v);
void mp_event_close(void);                                     /* } CR LF */
/* True while a machine request runs a console command (machine.c): commands that print a human table emit
 * their typed event (a "counters" event) for the request instead of printing it to nobody. */
extern bool mp_in_request;
uint32_t mp_event_seq(void);                                   /* the last event's seq (0: none yet) */

#endif
