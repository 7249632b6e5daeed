/* The SDK's fixed-size block allocator example (test/8_fixed_size_buffer; "Fixed-size
 * block allocator" in the SDK documentation): each tasklet takes an allocator of 1000
 * list nodes, builds a list of 11 values (me() + 42, me() + 1, ...), unlinks and frees
 * the even ones, sums the odd ones and frees the rest.
 *
 * A node is an int and a pointer: 8 bytes on a DPU, so the four allocators take 4 x
 * 8 KB of the 64 KB of WRAM. So that the host sees the results, each tasklet keeps its
 * sum in results[], and then takes back every block of its allocator (fsb_get gives
 * NULL once none is left) and keeps how many it got in blocks_back[]. */
#include <alloc.h>
#include <defs.h>
#include <fsb_allocator.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

typedef struct _list_t list_t;

struct _list_t {
    int data;
    list_t *next;
};

#define BLOCKSIZE (sizeof(list_t))
#define NB_OF_BLOCKS (1000)

fsb_allocator_t allocators[NR_TASKLETS];
__host uint32_t node_size = sizeof(list_t);
__host int results[NR_TASKLETS];
__host uint32_t blocks_back[NR_TASKLETS];

static list_t *add_head_data(fsb_allocator_t allocator, list_t *list, int data)
{
    list_t *new_data = fsb_get(allocator);
    if (new_data == NULL)
        return NULL;
    new_data->data = (int)me() + data;
    new_data->next = list;
    return new_data;
}

static list_t *populate_list(fsb_allocator_t allocator)
{
    static const int values[] = {42, 1, -2, 13, 22, 10000, 0, 91, -45, 9, 0};
    list_t *list = NULL;
    for (unsigned int i = 0; i < sizeof(values) / sizeof(values[0]); i++)
        list = add_head_data(allocator, list, values[i]);
    return list;
}

static void clean_list(fsb_allocator_t allocator, list_t *list)
{
    list_t *current = list;
    while (current != NULL) {
        list_t *tmp = current;
        current = current->next;
        fsb_free(allocator, tmp);
    }
}

int main(void)
{
    fsb_allocator_t allocator = fsb_alloc(BLOCKSIZE, NB_OF_BLOCKS);
    allocators[me()] = allocator;

    list_t *list = populate_list(allocator);
    list_t *current = list;
    list_t *previous = NULL;
    while (current != NULL) {
        if ((current->data % 2) == 0) {
            list_t *tmp = current;
            current = current->next;
            fsb_free(allocator, tmp);
            if (previous != NULL)
                previous->next = current;
            else
                list = current;
        } else {
            previous = current;
            current = current->next;
        }
    }

    int result = 0;
    for (current = list; current != NULL; current = current->next)
        result += current->data;
    clean_list(allocator, list);
    printf("tasklet[%u]: result = %d\n", me(), result);
    results[me()] = result;

    uint32_t taken = 0;
    while (fsb_get(allocator) != NULL)
        taken++;
    blocks_back[me()] = taken;
    return result;
}
