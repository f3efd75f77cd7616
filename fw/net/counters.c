/* net/counters.c - name table and indexed access for net/counters.h.
 * Input: a counters struct and an index. Output: value, name, description. */
#include <stddef.h>
#include "net/counters.h"

uint32_t net_counter_get(const struct net_counters *c, unsigned idx)
{
    switch (idx) {
#define NET_COUNTER_CASE(name, desc) case NET_CTR_##name: return c->name;
        NET_COUNTER_LIST(NET_COUNTER_CASE)
#undef NET_COUNTER_CASE
    default: return 0;
    }
}

static const char *const names[NET_COUNTER_COUNT] = {
#define NET_COUNTER_NAME(name, desc) #name,
    NET_COUNTER_LIST(NET_COUNTER_NAME)
#undef NET_COUNTER_NAME
};

const char *net_counter_name(unsigned idx) { return idx < NET_COUNTER_COUNT ? names[idx] : NULL; }

#ifndef NET_COUNTERS_NO_DESC
static const char *const descs[NET_COUNTER_COUNT] = {
#define NET_COUNTER_DESC(name, desc) desc,
    NET_COUNTER_LIST(NET_COUNTER_DESC)
#undef NET_COUNTER_DESC
};
const char *net_counter_desc(unsigned idx) { return idx < NET_COUNTER_COUNT ? descs[idx] : NULL; }
#else
const char *net_counter_desc(unsigned idx) { return idx < NET_COUNTER_COUNT ? "" : NULL; }
#endif
