/* linked_list.c - a list node corrupted through a dangling pointer.
 *
 * The program keeps an inventory as a singly linked list whose nodes come
 * from a small fixed pool. remove_item() returns a node to the pool, but
 * main() keeps a pointer to it ("last_removed") for an audit that runs
 * later. By then the pool has handed the same slot to a new item, so the
 * audit's write lands in a live node: the final total is wrong and the
 * "pears" quantity reads 0.
 *
 * What to look for: stop at the end of main (or at print_list), see that
 * pears has quantity 0, then
 *     watch -l pears->quantity      (or: watch pool[1].quantity)
 *     reverse-continue
 * gdb stops in audit_removed(), at the store through the stale pointer.
 * reverse-continue once more shows where pears got its real quantity.
 */
#include <stdio.h>
#include <string.h>

struct node {
  char name[12];
  int quantity;
  struct node *next;
};

#define POOL_SIZE 8
static struct node pool[POOL_SIZE];
static struct node *free_list;

static void pool_init(void) {
  for (int i = POOL_SIZE - 1; i >= 0; i--) {
    pool[i].next = free_list;
    free_list = &pool[i];
  }
}

static struct node *node_alloc(void) {
  struct node *n = free_list;
  free_list = n->next;
  memset(n, 0, sizeof *n);
  return n;
}

static void node_free(struct node *n) {
  n->next = free_list;
  free_list = n;
}

static struct node *push(struct node *head, const char *name, int quantity) {
  struct node *n = node_alloc();
  strncpy(n->name, name, sizeof n->name - 1);
  n->quantity = quantity;
  n->next = head;
  return n;
}

/* Unlinks the first node called `name`; returns it (already freed!). */
static struct node *remove_item(struct node **head, const char *name) {
  for (struct node **p = head; *p; p = &(*p)->next) {
    if (strcmp((*p)->name, name) == 0) {
      struct node *gone = *p;
      *p = gone->next;
      node_free(gone);
      return gone;
    }
  }
  return NULL;
}

/* The bug: zeroes the quantity of a node that was already given back. */
static void audit_removed(struct node *stale) {
  if (stale) stale->quantity = 0;
}

static int print_list(const struct node *head) {
  int total = 0;
  for (const struct node *n = head; n; n = n->next) {
    printf("  %-10s %3d\n", n->name, n->quantity);
    total += n->quantity;
  }
  return total;
}

int main(void) {
  struct node *list = NULL;
  pool_init();
  list = push(list, "apples", 10);
  list = push(list, "bananas", 20);
  list = push(list, "cherries", 30);

  struct node *last_removed = remove_item(&list, "bananas");
  struct node *pears = NULL;
  list = pears = push(list, "pears", 40); /* reuses the bananas slot */

  audit_removed(last_removed);

  printf("inventory:\n");
  int total = print_list(list);
  printf("total %d (expected 80)\n", total);
  return total == 80 ? 0 : 1;
}
