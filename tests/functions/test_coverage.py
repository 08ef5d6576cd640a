"""Every name of Chainer's function groups covered by fnet.functions exists there.

The names are those of Chainer v7's reference (API-CHECKLIST.md, section 2), by group.
"""

import inspect

import pytest

import fnet.functions as F

GROUPS = {
    "Arithmetic functions": ["add"],
    "Mathematical functions": (
        "absolute arccos arcsin arctan arctan2 arctanh argmax argmin average batch_inv "
        "batch_l2_norm_squared batch_matmul bias ceil cholesky clip cos cosh cumprod cumsum det "
        "batch_det digamma einsum erf erfc erfcinv erfcx erfinv exp expm1 fft fix fmod floor "
        "identity ifft inv lgamma linear_interpolate log log10 log1p log2 log_ndtr logsumexp matmul "
        "max maximum mean min minimum ndtr ndtri prod polygamma rsqrt scale sin sinh sign "
        "sparse_matmul sqrt square squared_difference sum sum_to tan tensordot zeta"
    ).split(),
    "Array manipulations": (
        "as_strided broadcast broadcast_to cast concat copy depth2space diagonal dstack expand_dims "
        "flatten flip fliplr flipud get_item hstack im2col moveaxis pad pad_sequence permutate repeat "
        "reshape resize_images rollaxis scatter_add select_item separate space2depth "
        "spatial_transformer_grid spatial_transformer_sampler split_axis squeeze stack swapaxes tile "
        "transpose transpose_sequence vstack where"
    ).split(),
    "Activation functions": (
        "clipped_relu crelu elu hard_sigmoid leaky_relu log_softmax lstm maxout prelu rrelu relu "
        "relu6 selu sigmoid slstm softmax softplus swish tanh tree_lstm"
    ).split(),
    "Loss functions": (
        "absolute_error bernoulli_nll black_out connectionist_temporal_classification contrastive "
        "crf1d argmax_crf1d cross_covariance decov discriminative_margin_based_clustering_loss "
        "gaussian_kl_divergence gaussian_nll hinge huber_loss mean_absolute_error mean_squared_error "
        "negative_sampling sigmoid_cross_entropy softmax_cross_entropy squared_error triplet"
    ).split(),
    "Evaluation functions": (
        "accuracy binary_accuracy classification_summary f1_score precision r2_score recall"
    ).split(),
    "Noise injections": "dropout gaussian gumbel_softmax simplified_dropconnect zoneout".split(),
    "Neural network connections": (
        "bilinear convolution_1d convolution_2d convolution_3d convolution_nd deconvolution_1d "
        "deconvolution_2d deconvolution_3d deconvolution_nd depthwise_convolution_2d "
        "deformable_convolution_2d_sampler dilated_convolution_2d embed_id linear local_convolution_2d "
        "n_step_bigru n_step_bilstm n_step_birnn n_step_gru n_step_lstm n_step_rnn shift"
    ).split(),
    "Spatial pooling": (
        "average_pooling_1d average_pooling_2d average_pooling_3d average_pooling_nd max_pooling_1d "
        "max_pooling_2d max_pooling_3d max_pooling_nd roi_average_align_2d roi_average_pooling_2d "
        "roi_max_align_2d roi_max_pooling_2d roi_pooling_2d spatial_pyramid_pooling_2d unpooling_1d "
        "unpooling_2d unpooling_3d unpooling_nd upsampling_2d"
    ).split(),
    "Normalization functions": (
        "batch_normalization batch_renormalization decorrelated_batch_normalization "
        "fixed_batch_normalization fixed_batch_renormalization fixed_decorrelated_batch_normalization "
        "group_normalization layer_normalization local_response_normalization normalize"
    ).split(),
}


@pytest.mark.parametrize("group", sorted(GROUPS))
def test_group_is_complete(group):
    missing = [name for name in GROUPS[group] if not callable(getattr(F, name, None))]
    assert not missing, f"{group}: missing from fnet.functions: {missing}"


@pytest.mark.parametrize("group", sorted(GROUPS))
def test_public_names_are_documented(group):
    undocumented = [
        name
        for name in GROUPS[group]
        if callable(getattr(F, name, None)) and not inspect.getdoc(getattr(F, name))
    ]
    assert not undocumented, f"{group}: no docstring: {undocumented}"
