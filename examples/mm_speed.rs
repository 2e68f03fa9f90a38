//! Times the embedded numpy's matrix product kernel on the MLP shapes:
//! `cargo run --release --example mm_speed`.
use std::time::Instant;

fn main() {
    let a =
        ndarray::Array2::<f64>::from_shape_fn((64, 128), |(i, j)| ((i * 7 + j) % 13) as f64 * 0.1);
    let b =
        ndarray::Array2::<f64>::from_shape_fn((128, 128), |(i, j)| ((i + 3 * j) % 11) as f64 * 0.1);
    let c = tangent::numpy::core::matmul(a.view().into_dyn(), b.view().into_dyn()).unwrap();
    println!(
        "standard layout: {}, strides {:?}",
        c.is_standard_layout(),
        c.strides()
    );
    for _ in 0..3 {
        let n = 2000;
        let t = Instant::now();
        let mut s = 0.0;
        for _ in 0..n {
            let c = tangent::numpy::core::mm2(a.view(), b.view());
            s += c[[0, 0]];
        }
        let per = t.elapsed().as_secs_f64() / n as f64;
        println!(
            "mm2 64x128 @ 128x128: {:.1} us ({:.1} GFLOP/s) {s}",
            per * 1e6,
            2.0 * 64.0 * 128.0 * 128.0 / per / 1e9
        );
        let t = Instant::now();
        for _ in 0..n {
            let d = tangent::numpy::core::map_unary(c.view(), f64::tanh);
            s += d[[0, 0]];
        }
        println!(
            "tanh over the product: {:.1} us",
            t.elapsed().as_secs_f64() / n as f64 * 1e6
        );
        let c2 = c.mapv(|x| x * 1.0);
        let t = Instant::now();
        for _ in 0..n {
            let d = tangent::numpy::core::map_unary(c2.view(), f64::tanh);
            s += d[[0, 0]];
        }
        println!(
            "tanh over a copy: {:.1} us {s}",
            t.elapsed().as_secs_f64() / n as f64 * 1e6
        );
    }
}
