/* Private to the chip layer: the keys of chip files with their valid
 * ranges (docs/chips.md "Chip files"), and the checks that combine several keys. */
#ifndef OPENSCC_CHIP_KEYS_H
#define OPENSCC_CHIP_KEYS_H

#include "chip.h"

enum chip_key_type { CHIP_KEY_NAME, CHIP_KEY_INT, CHIP_KEY_DOUBLE };

struct chip_key {
  const char *name;
  size_t offset; /* of the field in struct chip_desc */
  enum chip_key_type type;
  double min, max;
  const char *unit;
};

#define CHIP_NUM_KEYS 61

/* Index of a key, or -1. */
int chip_key_index(const char *name);

/* Set key k from its text, range-checked.  Returns 0, or -1 with
 * "KEY = 'VALUE': expected ..." in err. */
int chip_key_set(struct chip_desc *c, int k, const char *value, char *err, size_t errlen);

/* A value that is valid alone but not together with others. */
struct chip_problem {
  char why[200];       /* names the keys and values */
  const char *keys[4]; /* the keys involved, NULL-terminated */
  int mc;              /* the memory controller involved, or -1 */
};

/* Returns 1 and fills *p when the chip is inconsistent, else 0. */
int chip_find_problem(const struct chip_desc *c, struct chip_problem *p);

#endif
