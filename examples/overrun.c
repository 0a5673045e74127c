/* overrun.c - a buffer overrun that clobbers a neighbouring variable.
 *
 * A record holds a fixed-size name followed by a balance. set_name()
 * copies with an off-by-several bound (it trusts the source length, not
 * the buffer size), so a long name runs past `name` into `balance`.
 *
 * What to look for: the printed balance is garbage instead of 1000. Stop
 * at the printf in main, then
 *     watch acct.balance
 *     reverse-continue
 * gdb stops inside set_name()'s copy loop at the store that wrote past the
 * end of name[] (look at i: it is >= NAME_LEN). reverse-finish takes you
 * back to the call in main.
 */
#include <stdio.h>
#include <string.h>

#define NAME_LEN 8

struct account {
  char name[NAME_LEN];
  int balance;
  int id;
};

static void set_name(struct account *a, const char *src) {
  size_t len = strlen(src);
  for (size_t i = 0; i <= len; i++) /* BUG: should stop at NAME_LEN - 1 */
    a->name[i] = src[i];
}

int main(void) {
  struct account acct;
  acct.id = 7;
  acct.balance = 1000;
  set_name(&acct, "Bartholomew");
  printf("account %d: %.8s... balance %d (expected 1000)\n", acct.id, acct.name, acct.balance);
  return acct.balance == 1000 ? 0 : 1;
}
