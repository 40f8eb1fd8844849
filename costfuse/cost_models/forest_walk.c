/* The tree walk of costfuse/cost_models/forest.py, compiled (forest_native.py builds and loads it).

   The same arrays and the same semantics as Forest.numpy_margin: node i is a leaf iff children[2i] == i
   (both children are the leaf itself, so a walk that reached its leaf stays there); a row goes right
   unless x < threshold (compared as float32); a NaN goes where default_left says; leaf values are summed
   in double onto the offset.  Tree by tree, every row steps down `depth` levels, never testing where its
   walk ended: one tree's nodes stay in cache while the rows' walks, independent of one another, overlap
   in the pipeline, where a walk to each leaf in turn waits on every load of its path. */
#include <stdint.h>

enum { BLOCK = 64 };   /* rows whose walks of one tree advance together, one level at a time */

void forest_margin(const float *X, int64_t rows, int64_t cols, const int64_t *feature, const float *threshold,
                   const int64_t *children, const uint8_t *default_left, const float *value, const int64_t *roots,
                   int64_t trees, int64_t depth, double offset, double *out)
{
    int64_t node[BLOCK];
    for (int64_t r = 0; r < rows; ++r)
        out[r] = offset;
    for (int64_t first = 0; first < rows; first += BLOCK) {
        const int64_t n = rows - first < BLOCK ? rows - first : BLOCK;
        const float *x0 = X + first * cols;
        for (int64_t t = 0; t < trees; ++t) {
            for (int64_t j = 0; j < n; ++j)
                node[j] = roots[t];
            for (int64_t level = 0; level < depth; ++level)
                for (int64_t j = 0; j < n; ++j) {
                    const int64_t i = node[j];
                    const float v = x0[j * cols + feature[i]];
                    const int right = (v != v) ? !default_left[i] : !(v < threshold[i]);
                    node[j] = children[2 * i + right];
                }
            for (int64_t j = 0; j < n; ++j)
                out[first + j] += value[node[j]];
        }
    }
}
