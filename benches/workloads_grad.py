"""One gradient of each workload, for timing a new process cold (empty disk cache) and
warm: `tangent run benches/workloads_grad.py`."""
import tangent
import workloads

tangent.grad(workloads.mlp_loss)
tangent.grad(workloads.recurrence)
