"""torch.nn modules as people call them: checked by tests/torch/check_torch.py against
torch.autograd, torch.func.jvp and torch.func.grad (functional_call)."""
import torch
import torch.nn as nn

torch.manual_seed(7)
DT = torch.float64

linear = nn.Linear(4, 3).to(DT)
mlp = nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 3), nn.GELU(),
                    nn.Dropout(0.3)).to(DT).eval()
activations = nn.Sequential(
    nn.ReLU(), nn.Identity(), nn.LeakyReLU(0.2), nn.ELU(0.7), nn.CELU(1.1), nn.SELU(),
    nn.GELU(approximate="tanh"), nn.SiLU(), nn.Softplus(beta=2.0), nn.LogSigmoid(),
    nn.Softsign(), nn.Sigmoid(), nn.Tanh(), nn.Hardtanh(-0.8, 0.8), nn.ReLU6(),
    nn.Softmax(dim=-1)).to(DT)
log_softmax = nn.LogSoftmax(dim=1)
images = nn.Sequential(nn.Conv2d(2, 3, 3, padding=1), nn.ReLU(), nn.Flatten(),
                       nn.LayerNorm(3 * 5 * 5)).to(DT).eval()
normed = nn.Sequential(nn.Conv2d(2, 3, 3), nn.BatchNorm2d(3), nn.SiLU(), nn.Dropout2d(),
                       nn.Flatten(), nn.Linear(27, 2), nn.BatchNorm1d(2)).to(DT).eval()
with torch.no_grad():  # statistics and affine parameters away from their defaults
    for bn in (normed[1], normed[6]):
        bn.running_mean.uniform_(-0.5, 0.5)
        bn.running_var.uniform_(0.5, 2.0)
        bn.weight.uniform_(0.5, 1.5)
        bn.bias.uniform_(-0.3, 0.3)
embedding = nn.Embedding(10, 4, padding_idx=0).to(DT)
volumes = nn.Sequential(nn.BatchNorm3d(2), nn.Tanh()).to(DT).eval()
with torch.no_grad():
    volumes[0].running_var.uniform_(0.5, 2.0)
vectors = nn.Sequential(nn.Dropout1d(0.2), nn.Linear(4, 4)).to(DT).eval()


class Net(nn.Module):
    """A model of the program's own class: its `forward` is differentiated."""

    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(4, 6)
        self.layers = nn.Sequential(nn.Tanh(), nn.Linear(6, 2))

    def forward(self, x):
        h = torch.relu(self.fc1(x))
        return self.layers(h) * 2.0


net = Net().to(DT)


def f_linear(x):
    return torch.sum(linear(x) ** 2)


def f_mlp(x):
    return torch.sum(mlp(x))


def f_activations(x):
    return torch.sum(activations(x) * torch.arange(1.0, 5.0, dtype=DT)) + torch.sum(
        log_softmax(x) ** 2)


def f_images(x):
    return torch.sum(images(x) ** 2)


def f_normed(x):
    return torch.sum(normed(x) ** 2)


def f_volumes(x):
    return torch.sum(volumes(x) ** 2)


def padded(w, ids, seed):
    return torch.sum(torch.nn.functional.embedding(ids, w, 0) * seed)


def f_vectors(x):
    return torch.sum(vectors(x[None]) ** 3)


def f_net(x):
    return torch.sum(net(x) ** 2)


def f_call_net(x):
    return torch.sum(net.forward(x) * x[:, :2])


def p_mlp(params, x):
    return torch.sum(torch.func.functional_call(mlp, params, (x,)) ** 2)


def p_normed(params, x):
    return torch.sum(torch.func.functional_call(normed, params, (x,)) ** 2)


def p_embedding(params, ids):
    return torch.sum(torch.func.functional_call(embedding, params, ids) ** 3)


def p_stacked(params, ids):
    return torch.sum(torch.func.functional_call(mlp, params, (embedding(ids),)) ** 2)


X4 = (5, 4)
IMG = (2, 2, 5, 5)
IDS = torch.tensor([[1, 0, 3], [4, 4, 9]])
# (function, input shape, the module classes its modules cover)
CALLS = [
    (f_linear, X4, {"Linear"}),
    (f_mlp, X4, {"Sequential", "Linear", "Tanh", "GELU", "Dropout"}),
    (f_activations, X4, {"ReLU", "Identity", "LeakyReLU", "ELU", "CELU", "SELU", "GELU",
                         "SiLU", "Softplus", "LogSigmoid", "Softsign", "Sigmoid", "Tanh",
                         "Hardtanh", "ReLU6", "Softmax", "LogSoftmax"}),
    (f_images, IMG, {"Conv2d", "ReLU", "Flatten", "LayerNorm"}),
    (f_normed, IMG, {"Conv2d", "BatchNorm2d", "SiLU", "Dropout2d", "Flatten", "Linear",
                     "BatchNorm1d"}),
    (f_vectors, (3, 4), {"Dropout1d", "Linear"}),
    (f_volumes, (2, 2, 3, 3, 3), {"BatchNorm3d", "Tanh"}),
    (f_net, X4, set()),
    (f_call_net, X4, set()),
]
# (function, module, its input, the classes covered): gradients with respect to the
# dict of parameters (buffers read from the module).
FUNCTIONAL = [
    (p_mlp, mlp, torch.randn(5, 4, dtype=DT), {"Linear"}),
    (p_normed, normed, torch.randn(*IMG, dtype=DT), {"BatchNorm2d", "BatchNorm1d",
                                                     "Conv2d"}),
    (p_embedding, embedding, IDS, {"Embedding"}),
    (p_stacked, mlp, IDS, {"Embedding"}),
]
