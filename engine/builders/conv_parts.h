#pragma once
// Convolutional building blocks shared by the ResNet and Inception builders.

#include "engine/builders/graph_builder.h"

#include <string>
#include <utility>

namespace shardscope::conv {

/// A square feature map: tensor, channels and spatial size.
struct Feature {
    TensorId t;
    std::int64_t c;
    std::int64_t size;
};

/// The inputs of an image classifier: a batch of `n` RGB images of `image` x `image` pixels in the
/// graph's dtype, and their labels. Throws InputError unless `image` is a multiple of 32.
std::pair<Feature, TensorId> imageInputs(GraphBuilder& gb, std::int64_t image, std::int64_t n);

/// Convolution `kh` x `kw`, `stride`, "same" padding, on a batch of `n`. A strided output position P
/// maps to the input dimension (P, z) with z = stride, so a split of P is a contiguous split of rows.
Feature conv(GraphBuilder& gb, const Feature& x, std::int64_t out, std::int64_t kh, std::int64_t kw,
             std::int64_t stride, const std::string& name, const std::string& block, std::int64_t n);
/// Batch normalisation with statistics per device (the framework default).
Feature batchNorm(GraphBuilder& gb, const Feature& x, const std::string& name, const std::string& block,
                  std::int64_t n);
/// Element-wise ReLU.
Feature relu(GraphBuilder& gb, const Feature& x, const std::string& name, const std::string& block, std::int64_t n);
/// Convolution, batch-norm and ReLU, named `name`.conv / .bn / .relu.
Feature unit(GraphBuilder& gb, const Feature& x, std::int64_t out, std::int64_t kh, std::int64_t kw,
             std::int64_t stride, const std::string& name, const std::string& block, std::int64_t n);
/// Pooling `window` x `window` with `stride` (1 or 2), "same" padding.
Feature pool(GraphBuilder& gb, const Feature& x, std::int64_t stride, const std::string& name,
             const std::string& block, std::int64_t n);

/// Global average pooling, a linear classifier to `classes` and the cross-entropy loss against `labels`.
void classifier(GraphBuilder& gb, const Feature& x, std::int64_t classes, TensorId labels, std::int64_t n);

} // namespace shardscope::conv
