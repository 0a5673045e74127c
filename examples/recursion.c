/* recursion.c - recursion to walk backwards through: a naive Fibonacci
 * and a depth-first walk over a small binary tree.
 *
 * What to look for:
 *  - break at the `return 1` in fib() (the base case), then `bt` shows the
 *    whole chain of calls; `reverse-finish` steps back out to the caller,
 *    `reverse-step` walks back into the previous call's return.
 *  - break at depth_sum() when node->value == 7 (the deepest leaf), then
 *    reverse-continue to the previous visit, or `reverse-finish` several
 *    times to climb back up the tree.
 */
#include <stdio.h>

static int fib(int n) {
  if (n < 2)
    return 1;
  return fib(n - 1) + fib(n - 2);
}

struct tree {
  int value;
  struct tree *left, *right;
};

/* Sum of value * depth over the tree. */
static int depth_sum(const struct tree *node, int depth) {
  if (!node)
    return 0;
  int here = node->value * depth;
  return here + depth_sum(node->left, depth + 1) + depth_sum(node->right, depth + 1);
}

int main(void) {
  struct tree n7 = {7, 0, 0}, n6 = {6, 0, 0}, n5 = {5, &n7, 0}, n4 = {4, 0, 0};
  struct tree n3 = {3, &n6, 0}, n2 = {2, &n4, &n5}, n1 = {1, &n2, &n3};
  int f = fib(10);
  int s = depth_sum(&n1, 1);
  printf("fib(10) = %d\n", f);
  printf("depth sum = %d\n", s);
  return 0;
}
