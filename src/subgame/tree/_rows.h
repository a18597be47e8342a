/* A node's rows and a board's hands as the depth-first passes index them (subgame.tree.kernels.ROW): int16, as
   a node holds at most 1,326 hands (two cards of 52) and -1 marks a hand the other player lacks. */
#ifndef SUBGAME_ROWS_H
#define SUBGAME_ROWS_H
#include <stdint.h>
typedef int16_t row_t;
#endif
