/* A C file written in many styles at once: clang-format rewrites nearly every line of it. */
#include <string.h>
#include "z_last.h"
#include "a_first.h"

#define SQUARE(x) ((x)*(x))
#define LOG(fmt, ...) fprintf(stderr, fmt "\n", __VA_ARGS__)

typedef struct { int x, y; } point_t;
struct node { struct node *next; int value; };
enum mode { MODE_A = 0x1F, MODE_B = 1 << 3, MODE_C, };
typedef int (*cmp_fn)(const void *, const void *);

static const char *names[] = {"alpha", "beta", "gamma",};
static point_t origin = { .x = 0, .y = 0 };

static int clamp(int v,int lo,int hi){return v<lo?lo:v>hi?hi:v;}

int sum_list(const struct node *head)
{
  int total=0;
  for(const struct node*n=head;n!=NULL;n=n->next){ total+=n->value; }
  while (total > 1000) total /= 2;
  do { total++; } while (total % 3);
  return total;
}

long long_arguments(int first_argument, const char *second_argument, double third_argument, point_t fourth_argument, unsigned long fifth)
{
    if (first_argument > 0 && second_argument != NULL && third_argument > 0.5e1 && fourth_argument.x > 0) {
        return (long)(first_argument * third_argument) + strlen(second_argument) + fifth;
    } else if (first_argument < 0) { return -1; }
    else
        return 0;
}

int dispatch(enum mode m, int v)
{
    switch (m) {
    case MODE_A: return SQUARE(v);
    case MODE_B:
        {
            int w = clamp(v, 0, 10);
            return w * 2;
        }
    default: break;
    }
    goto done;
done:
    return -1;
}

const char *describe(int i) {
    static char buf[64];
    const char *label = "a long string " "split in two" " parts\twith\x41 escapes\n";
    char c = '\'';
    strncpy(buf, label, sizeof(buf) - 1);
    buf[0] = c;
    return i >= 0 && i < 3 ? names[i] : buf;
}

int compare_points(const void *a, const void *b)
{
    const point_t *p = a, *q = b;
    return (p->x - q->x) ? (p->x - q->x) : (p->y - q->y);
}

void sort_points(point_t *points, size_t n) { qsort(points, n, sizeof *points, compare_points); }

#ifdef DEBUG
static void trace(const char *what) { LOG("trace: %s", what); }
#else
static void trace(const char *what) { (void)what; }
#endif
