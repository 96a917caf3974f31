#include <stdio.h>
#define MAX 10
#define SQ(x) ((x) * (x))

struct point {
    int x, y;
    struct inner { int z; } in;
};

typedef struct {
    int a;
} anon_t;

typedef struct node {
    struct node *next;
} node_t, *node_p;

typedef int (*callback)(int);
union u { int i; float f; };
enum color { RED, GREEN };

static int add(int a, int b);
char **split(const char *s);

static int
add(int a, int b)
{
    struct local { int q; };
    int helper(void);
    return a + b;
}

#ifdef X
void guarded(void) {}
#endif
