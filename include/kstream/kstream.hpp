#pragma once
// Everything kstream offers: tiled add, fma and transform, copy between any two layouts, reductions (whole views
// and along dimensions), row operations (softmax, norms), their naive baselines, recordings (graphs) and the tile
// shapes.
#include <kstream/add.hpp>
#include <kstream/along.hpp>
#include <kstream/configuration.hpp>
#include <kstream/copy.hpp>
#include <kstream/fma.hpp>
#include <kstream/low_precision.hpp>
#include <kstream/naive.hpp>
#include <kstream/record.hpp>
#include <kstream/reduce.hpp>
#include <kstream/rows.hpp>
#include <kstream/streaming_stores.hpp>
#include <kstream/tiling.hpp>
#include <kstream/transform.hpp>
