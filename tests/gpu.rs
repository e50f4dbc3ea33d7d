//! The GPU backend against the CPU backend, bit for bit, on whatever Vulkan adapter there is
//! (lavapipe in CI). Without an adapter these tests skip, saying so, unless
//! `GPUSEARCH_REQUIRE_GPU` is set: then a missing adapter fails them.

mod common;
use common::{Events, Every, directed_gens, perm_from_gens, scratch, search_on};
use gpusearch::gpu::engine::GpuSweeper;
use gpusearch::gpu::layout::Layout;
use gpusearch::gpu::{Adapters, Gpu};
use gpusearch::puzzle::family::Request;
use gpusearch::puzzle::hanoi::Hanoi;
use gpusearch::puzzle::pancake::Pancake;
use gpusearch::puzzle::perm::{Identity, Inverses, parse};
use gpusearch::puzzle::registry::{self, Visit};
use gpusearch::puzzle::rotation;
use gpusearch::puzzle::sliding::Sliding;
use gpusearch::puzzle::symmetry::{Erased, Reduced};
use gpusearch::puzzle::twisty::{Naming, Twisty, format};
use gpusearch::puzzle::{Cursor, Metric, Perm, Ring, Space, StateSpace};
use gpusearch::search::cpu::search;
use gpusearch::search::disk::{Cut, DiskEngine, slab_units};
use gpusearch::search::{Engine, Options, Outcome, PassPolicy, Resume, Saved, Silent, Step, drive};
use gpusearch::store;
use gpusearch::table::DistanceTable;
use serde_json::Value;

use std::process::Command;

/// The adapter, or `None` (and a note) when there is none and none is required.
fn gpu() -> Option<Gpu> {
    let gpu = Gpu::open(Adapters::Any).expect("the adapter opens");
    if gpu.is_none() {
        assert!(
            std::env::var_os("GPUSEARCH_REQUIRE_GPU").is_none(),
            "GPUSEARCH_REQUIRE_GPU is set but there is no Vulkan adapter with 64-bit integers \
             (install mesa-vulkan-drivers and libvulkan1 for lavapipe)"
        );
        eprintln!("SKIPPED: no Vulkan adapter with 64-bit shader integers");
    }
    gpu
}

fn options(strategy: PassPolicy) -> Options {
    Options {
        antipode_limit: 100,
        policy: strategy,
        ..Options::default()
    }
}

/// Asserts that two searches found the same table, word for word, and the same figures.
fn assert_same(what: &str, cpu: &Outcome, gpu: &Outcome) {
    assert_eq!(cpu.levels, gpu.levels, "{what}: levels");
    assert_eq!(cpu.antipodes, gpu.antipodes, "{what}: antipodes");
    assert_eq!(cpu.table.word_count(), gpu.table.word_count(), "{what}");
    for w in 0..cpu.table.word_count() {
        assert_eq!(
            cpu.table.word(w),
            gpu.table.word(w),
            "{what}: table word {w}"
        );
    }
}

fn compare(gpu: &Gpu, n: usize, metric: Metric, window: Option<u64>, strategy: PassPolicy) {
    let space = Ring::turnstyle(n, metric).unwrap();
    compare_space(
        gpu,
        &space,
        &format!("n={n} {}", metric.name()),
        window,
        strategy,
    );
}

fn compare_space<S: StateSpace>(
    gpu: &Gpu,
    space: &S,
    name: &str,
    window: Option<u64>,
    strategy: PassPolicy,
) {
    let layout = gpu.plan(space.size(), window).unwrap();
    let what = format!("{name} windows={} {strategy:?}", layout.windows);
    let cpu = search(space, &options(PassPolicy::Auto), &Silent);
    let found = gpu
        .search(space, &layout, &options(strategy), &Silent)
        .unwrap();
    assert_same(&what, &cpu, &found);
}

/// 3-cycles on 7 points with the solved arrangement 2 1 3 4 5 6 7: the odd permutations.
fn odd_coset() -> Perm {
    let mut def = parse::generators("(1,2,3); (3,4,5,6,7)").unwrap();
    def.solved = vec![2, 1, 3, 4, 5, 6, 7];
    Perm::new(
        Identity {
            family: "perm".into(),
            params: Default::default(),
            metric: "gens".into(),
            slug: "test".into(),
        },
        def,
        Inverses::Added,
    )
    .unwrap()
}

#[test]
fn directed_generators_give_the_cpu_tables() {
    let Some(gpu) = gpu() else { return };
    // LX (all permutations) and one-way 3-cycles (the even ones): pushes along the generators,
    // pulls along their inverses, in every kind of pass.
    for (name, space) in [
        ("LX 8", directed_gens("(1,2,3,4,5,6,7,8); (1,2)")),
        ("A_7 3-cycles", directed_gens("(1,2,3); (3,4,5); (5,6,7)")),
    ] {
        compare_space(&gpu, &space, name, None, PassPolicy::Auto);
        compare_space(&gpu, &space, name, Some(3 << 10), PassPolicy::BottomUp);
        compare_space(&gpu, &space, name, None, PassPolicy::TopDown);
        compare_space(&gpu, &space, name, None, PassPolicy::Lists);
    }
}

#[test]
fn coset_graphs_give_the_cpu_tables() {
    let Some(gpu) = gpu() else { return };
    // Two labels and three, both ways and one way: the shader's multiset ranks in every kind
    // of pass.
    for (gens, start, directed) in [
        ("(1,2,3,4,5,6,7,8,9,10,11,12); (1,2)", "000000111111", false),
        ("(1,2,3,4,5,6,7,8,9,10); (1,4)(2,3)", "0101010101", false),
        ("(1,2,3,4,5,6,7,8,9); (1,2)", "0 0 0 1 1 1 2 2 2", false),
        ("(1,2,3,4,5,6,7,8,9,10); (1,2)", "0001110001", true),
    ] {
        let mut request = Request::new("perm").with("gens", gens).with("start", start);
        if directed {
            request = request.with("directed", "true");
        }
        let Ok(Space::Coset(space)) = registry::space(&request) else {
            panic!("{gens} from {start}: not a coset graph")
        };
        let name = format!("{gens} from {start}");
        compare_space(&gpu, &space, &name, None, PassPolicy::Auto);
        compare_space(&gpu, &space, &name, Some(3 << 10), PassPolicy::BottomUp);
        compare_space(&gpu, &space, &name, None, PassPolicy::TopDown);
    }
}

#[test]
fn the_generic_permutation_shader_gives_the_cpu_tables() {
    let Some(gpu) = gpu() else { return };
    // All permutations (lexicographic ranks), the even ones (halved), the odd ones (halved:
    // an odd solved arrangement under even moves), and a rotation board.
    for (name, space) in [
        ("S_8", perm_from_gens("(1,2)(3,4); (1,2,3,4,5,6,7,8)")),
        ("A_9", perm_from_gens("(1,2)(3,4); (1,2,3,4,5,6,7,8,9)")),
        (
            "S_7 transposition",
            perm_from_gens("(1,2); (1,2,3,4,5,6,7)"),
        ),
        ("odd A_7 coset", odd_coset()),
    ] {
        compare_space(&gpu, &space, name, None, PassPolicy::Auto);
        compare_space(&gpu, &space, name, Some(3 << 10), PassPolicy::BottomUp);
    }
    let board = rotation::board(3, 3, 2).unwrap();
    // Moves that leave some positions as they are (two empty pegs): the Towers of Hanoi.
    for (pegs, discs) in [(3, 7), (4, 6), (5, 5)] {
        let hanoi = Hanoi::new(pegs, discs).unwrap();
        let name = format!("hanoi {pegs} pegs {discs} discs");
        compare_space(&gpu, &hanoi, &name, None, PassPolicy::Auto);
        compare_space(&gpu, &hanoi, &name, Some(1 << 10), PassPolicy::BottomUp);
        // Residual moves over many windows: each dispatched once per window they reach.
        compare_space(&gpu, &hanoi, &name, Some(1 << 10), PassPolicy::Auto);
    }
    // Flips of whole runs of ranks and flips state by state, burnt or not: pancakes.
    for (n, burnt) in [(8, false), (6, true)] {
        let pancake = Pancake::new(n, burnt).unwrap();
        let name = format!("pancake {n} burnt {burnt}");
        compare_space(&gpu, &pancake, &name, None, PassPolicy::Auto);
        compare_space(&gpu, &pancake, &name, Some(1 << 10), PassPolicy::BottomUp);
    }
    // Tiles that are not there at the edges, and ranks of the reachable half: sliding puzzles.
    for (rows, cols) in [(3, 3), (2, 4), (4, 2)] {
        let sliding = Sliding::new(rows, cols).unwrap();
        let name = format!("sliding {rows}x{cols}");
        compare_space(&gpu, &sliding, &name, None, PassPolicy::Auto);
        compare_space(&gpu, &sliding, &name, Some(12 << 10), PassPolicy::TopDown);
    }
    compare_space(
        &gpu,
        &board,
        "rotation 3x3",
        Some(12 << 10),
        PassPolicy::Auto,
    );
}

#[test]
fn the_generic_permutation_shader_ranks_as_the_cpu_does() {
    let Some(gpu) = gpu() else { return };
    for space in [
        perm_from_gens("(1,2)(3,4); (1,2,3,4,5,6,7,8,9,10,11,12,13)"),
        perm_from_gens("(1,2,3); (1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16)"),
        rotation::board(4, 5, 2).unwrap(),
    ] {
        assert_neighbours(&gpu, &space, &spread_ranks(space.size(), 300));
    }
}

/// The first, second and last ranks of a space of `size`, and `count` more spread over it by a
/// fixed generator.
fn spread_ranks(size: u64, count: usize) -> Vec<u64> {
    let mut ranks = vec![0, 1, size - 1];
    let mut x = 0x2545_f491_4f6c_dd1du64;
    for _ in 0..count {
        x = x
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        ranks.push((((x >> 11) as u128 * size as u128) >> 53) as u64);
    }
    ranks
}

/// Asserts that the shader's neighbours of each of `ranks` are the CPU cursor's, move by move.
fn assert_neighbours<S: StateSpace>(gpu: &Gpu, space: &S, ranks: &[u64]) {
    let found = gpu.neighbours(space, ranks).unwrap();
    let moves = space.move_count();
    let mut cursor = space.cursor();
    for (i, &rank) in ranks.iter().enumerate() {
        cursor.seek(rank);
        let cpu: Vec<u64> = (0..moves).map(|m| cursor.neighbour(m)).collect();
        assert_eq!(
            cpu,
            found[i * moves..(i + 1) * moves],
            "{} rank {rank}",
            space.slug()
        );
    }
}

#[test]
fn gpu_tables_equal_cpu_tables_for_n_4_to_10() {
    let Some(gpu) = gpu() else { return };
    for metric in [Metric::Lrf, Metric::Flips] {
        for n in 4..=10 {
            compare(&gpu, n, metric, None, PassPolicy::Auto);
        }
    }
    for n in 5..=10 {
        let topspin = Ring::topspin(n, 4, Metric::Lrf).unwrap();
        compare_space(
            &gpu,
            &topspin,
            &format!("topspin {n}"),
            None,
            PassPolicy::Auto,
        );
    }
}

#[test]
fn many_small_windows_give_the_same_tables() {
    let Some(gpu) = gpu() else { return };
    // 96 KiB windows: N=10 lrf spans 14 windows, N=10 flips 2; 12 KiB: flips spans 12.
    for (n, metric, window) in [
        (10, Metric::Lrf, 96 << 10),
        (10, Metric::Flips, 12 << 10),
        (9, Metric::Lrf, 12 << 10),
        (8, Metric::Flips, 768),
    ] {
        let layout = gpu
            .plan(Ring::turnstyle(n, metric).unwrap().size(), Some(window))
            .unwrap();
        assert!(layout.windows >= 2, "n={n}: {} windows", layout.windows);
        compare(&gpu, n, metric, Some(window), PassPolicy::Auto);
    }
}

#[test]
fn top_down_and_bottom_up_passes_each_give_the_same_tables() {
    let Some(gpu) = gpu() else { return };
    for strategy in [PassPolicy::TopDown, PassPolicy::BottomUp] {
        for (n, metric) in [(8, Metric::Lrf), (9, Metric::Flips), (7, Metric::Lrf)] {
            compare(&gpu, n, metric, Some(3 << 10), strategy);
        }
    }
}

#[test]
fn windows_beyond_the_binding_limit_are_refused_with_the_numbers() {
    let Some(gpu) = gpu() else { return };
    // 13! / 2 entries in windows of 768 bytes: millions of windows.
    let space = Ring::turnstyle(13, Metric::Lrf).unwrap();
    let error = gpu.plan(space.size(), Some(768)).unwrap_err();
    assert!(error.contains("GPU windows"), "{error}");
    assert!(error.contains("storage buffers"), "{error}");
}

#[test]
fn shader_neighbours_equal_cpu_neighbours_at_64_bit_ranks() {
    let Some(gpu) = gpu() else { return };
    for n in [12, 13, 14, 16] {
        for metric in [Metric::Lrf, Metric::Flips] {
            let space = Ring::turnstyle(n, metric).unwrap();
            let ranks = spread_ranks(space.size(), 500);
            if n >= 14 && metric == Metric::Lrf {
                assert!(ranks.iter().any(|&r| r >> 32 != 0), "ranks beyond 2^32");
            }
            let found = gpu.neighbours(&space, &ranks).unwrap();
            let moves = space.move_count();
            let mut cursor = space.cursor();
            for (i, &rank) in ranks.iter().enumerate() {
                cursor.seek(rank);
                let mut cpu: Vec<u64> = (0..moves).map(|m| cursor.neighbour(m)).collect();
                let mut shader = found[i * moves..(i + 1) * moves].to_vec();
                cpu.sort_unstable();
                shader.sort_unstable();
                assert_eq!(cpu, shader, "n={n} {} rank {rank}", metric.name());
            }
        }
    }
}

#[test]
fn shader_divisions_equal_cpu_divisions() {
    let Some(gpu) = gpu() else { return };
    // Edges (quotients near 2^64 and 2^32, divisors of one and near 2^64, both sides of 2^32,
    // 2^24 and 2^16),
    // the sweep's and the rank code's shapes (ranks beyond 2^32 by radices and runs), and a
    // fixed walk over every magnitude.
    let mut pairs = vec![
        (u64::MAX, 1),
        (u64::MAX, 2),
        (u64::MAX, u64::MAX),
        (u64::MAX - 1, u64::MAX),
        (0, 7),
        ((1 << 32) - 1, (1 << 32) - 1),
        (1 << 32, (1 << 32) - 1),
        (1 << 32, 1 << 32),
        (6_227_020_799, 362_880),
        (87_178_291_199, 6_227_020_800),
        (6_227_020_799, 65_535),
        (6_227_020_799, 65_536),
        // Both below 2^32: the floating-point division, at its edges.
        ((1 << 32) - 1, 1),
        ((1 << 32) - 1, 2),
        ((1 << 32) - 1, 3),
        ((1 << 32) - 1, 65_537),
        ((1 << 32) - 1, (1 << 31) + 1),
        ((1 << 32) - 2, (1 << 32) - 1),
        (16_777_217, 1),
        (16_777_216, 16_777_217),
        (479_001_599, 40_320),
        (39_916_799, 362_880),
    ];
    let mut x = 0x2545_f491_4f6c_dd1du64;
    for i in 0..8000u32 {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        let n = x >> (i % 64);
        let d = (x.rotate_left(29) >> (i / 64 % 64)).max(1);
        pairs.push((n, d));
    }
    let found = gpu.quotients(&pairs).unwrap();
    let (mut wide, mut small_checked) = (0, 0);
    for (&(n, d), &(q, small)) in pairs.iter().zip(&found) {
        if n / d < 1 << 32 && n < 1 << 62 && d < 1 << 62 {
            assert_eq!(q, n / d, "div64({n}, {d})");
            wide += 1;
        }
        if d < 1 << 32 {
            assert_eq!(small, n / d, "div_small({n}, {d})");
            small_checked += 1;
        }
    }
    assert!(
        wide > 3000 && small_checked > 3000,
        "{wide} and {small_checked} pairs"
    );
}

/// `report` without what differs between backends and runs of the same search: timings, the
/// backend and its adapter.
fn without_timings(report: &mut Value) {
    for key in [
        "seconds",
        "states_per_second",
        "classes_per_second",
        "threads",
        "backend",
        "adapter",
    ] {
        report.as_object_mut().unwrap().remove(key);
    }
}

/// Runs the binary; the parsed report and the distances file.
fn run(args: &[&str], out: &std::path::Path) -> (Value, Vec<u8>) {
    let result = Command::new(env!("CARGO_BIN_EXE_gpusearch"))
        .args(args)
        .args(["--out", out.to_str().unwrap(), "--quiet"])
        .output()
        .unwrap();
    assert!(
        result.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&result.stderr)
    );
    let report =
        serde_json::from_str(&std::fs::read_to_string(out.join("report.json")).unwrap()).unwrap();
    (report, std::fs::read(out.join("distances.gsd")).unwrap())
}

#[test]
fn the_gpu_backend_writes_the_cpu_backends_files() {
    if gpu().is_none() {
        return;
    }
    let dir = scratch("files");
    // A folder of each metric's own: a run refuses another puzzle's result.
    for metric in ["lrf", "flips"] {
        let base = ["--puzzle", "turnstyle", "--n", "9", "--metric", metric];
        let with = |extra: &[&'static str]| -> Vec<&str> {
            base.iter().copied().chain(extra.iter().copied()).collect()
        };
        let (mut cpu, cpu_file) = run(
            &with(&["--backend", "cpu"]),
            &dir.join(format!("{metric}-cpu")),
        );
        let (mut gpu, gpu_file) = run(
            &with(&["--backend", "gpu", "--gpu-window-bytes", "3072"]),
            &dir.join(format!("{metric}-gpu")),
        );
        assert_eq!(cpu_file, gpu_file, "{metric}: distances files differ");
        // A GPU too small for 3 bits an entry (166,348 bytes here) holds 2 (143,668).
        let (mut two_bits, two_bits_file) = run(
            &with(&["--backend", "gpu", "--gpu-memory", "150KB"]),
            &dir.join(format!("{metric}-gpu-2-bits")),
        );
        assert_eq!(cpu_file, two_bits_file, "{metric}: 2 bits an entry");
        // Too small for 2 (lrf: flips at n = 9 fits): slabs in host memory, each swept there
        // (one: a slab's frontier lists take less room); with the slabs forced small, slabs on
        // disk.
        if metric == "lrf" {
            let (held, held_file) = run(
                &with(&["--backend", "gpu", "--gpu-memory", "120KB"]),
                &dir.join(format!("{metric}-gpu-held")),
            );
            assert_eq!(cpu_file, held_file, "slabs in memory swept on the GPU");
            assert_eq!(held["disk"]["in_memory"], true, "{held}");
        }
        let (slabs, slabs_file) = run(
            &with(&[
                "--backend",
                "gpu",
                "--gpu-memory",
                "100KB",
                "--slab-bytes",
                "2000",
            ]),
            &dir.join(format!("{metric}-gpu-slabs")),
        );
        assert_eq!(
            cpu_file, slabs_file,
            "{metric}: slabs on disk swept on the GPU"
        );
        assert_eq!(slabs["backend"], "gpu");
        assert!(slabs["disk"]["slabs"].as_u64().unwrap() > 1, "{slabs}");
        assert!(slabs["disk"].get("in_memory").is_none(), "{slabs}");
        assert_eq!(cpu["backend"], "cpu");
        assert_eq!(cpu["adapter"], Value::Null);
        assert_eq!(gpu["backend"], "gpu");
        assert!(
            gpu["adapter"]["name"]
                .as_str()
                .is_some_and(|s| !s.is_empty())
        );
        assert!(gpu["adapter"]["driver"].is_string());
        for report in [&mut cpu, &mut gpu, &mut two_bits] {
            without_timings(report);
        }
        assert_eq!(cpu, two_bits, "{metric}: the report with 2 bits an entry");
        assert_eq!(
            cpu, gpu,
            "{metric}: reports differ beyond timings and backend"
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// Runs `args` on the GPU backend and asserts a one-line refusal naming `needles`, exit status
/// 2, and no output folder.
fn refused_before_any_output(args: &[&str], needles: &[&str]) {
    let dir = scratch(&format!("refused-{}", args.join("-")));
    let out = dir.join("out");
    let result = Command::new(env!("CARGO_BIN_EXE_gpusearch"))
        .args(["--puzzle", "turnstyle", "--backend", "gpu", "--quiet"])
        .args(args)
        .arg("--out")
        .arg(&out)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&result.stderr);
    assert_eq!(result.status.code(), Some(2), "{stderr}");
    assert_eq!(stderr.trim_end().lines().count(), 1, "one line: {stderr}");
    for needle in needles {
        assert!(stderr.contains(needle), "{needle}: {stderr}");
    }
    assert!(!out.exists(), "no output folder");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn tables_the_gpu_cannot_hold_are_refused_before_any_output() {
    if gpu().is_none() {
        return;
    }
    // More windows than a shader binds.
    refused_before_any_output(
        &["--n", "12", "--gpu-window-bytes", "768"],
        &["GPU windows"],
    );
    // More bytes than --gpu-memory allows, even for a slab of the table in host memory.
    refused_before_any_output(
        &["--n", "10", "--gpu-memory", "64KiB"],
        &[
            "a slab of 100800 entries needs 120.6 KiB (123508 bytes) of GPU memory",
            "--gpu-memory gives 64.0 KiB",
        ],
    );
}

#[test]
fn a_table_beyond_the_gpu_and_the_host_plans_its_slabs_swept_there() {
    if gpu().is_none() {
        return;
    }
    // More windows than lavapipe binds for the whole table: no matter, the GPU holds slabs.
    let result = Command::new(env!("CARGO_BIN_EXE_gpusearch"))
        .args([
            "--puzzle",
            "turnstyle",
            "--n",
            "14",
            "--backend",
            "gpu",
            "--dry-run",
        ])
        .args(["--gpu-memory", "4GiB", "--memory", "6GiB", "--threads", "2"])
        .output()
        .unwrap();
    let plan = String::from_utf8_lossy(&result.stdout);
    assert!(
        result.status.success(),
        "{}",
        String::from_utf8_lossy(&result.stderr)
    );
    assert!(
        plan.contains("the GPU sweeps each slab's block moves"),
        "{plan}"
    );
    assert!(plan.contains("(--gpu-memory): fits"), "{plan}");
}

/// Three ring puzzles whose searches take every kind of pass.
fn ring_spaces() -> [(&'static str, Ring); 3] {
    [
        ("turnstyle 9 lrf", Ring::turnstyle(9, Metric::Lrf).unwrap()),
        (
            "turnstyle 9 flips",
            Ring::turnstyle(9, Metric::Flips).unwrap(),
        ),
        ("topspin 9", Ring::topspin(9, 4, Metric::Lrf).unwrap()),
    ]
}

#[test]
fn the_level_loop_drives_both_engines_through_the_same_passes() {
    let Some(gpu) = gpu() else { return };
    for (name, space) in ring_spaces() {
        // With seen bits, and with 2 bits an entry: the antipodes then come from a list, the
        // remaining list's tags or a descent on the host's copy, by the kind of the last pass.
        let three = gpu.plan(space.size(), Some(24 << 10)).unwrap();
        for layout in [three, two_bits(&gpu, &space, 24 << 10)] {
            for strategy in [
                PassPolicy::Auto,
                PassPolicy::Lists,
                PassPolicy::TopDown,
                PassPolicy::BottomUp,
                PassPolicy::Sweep,
            ] {
                let (cpu_events, gpu_events) = (Events::default(), Events::default());
                let cpu = search(&space, &options(strategy), &cpu_events);
                let found = gpu
                    .search(&space, &layout, &options(strategy), &gpu_events)
                    .unwrap();
                let what = format!("{name} {strategy:?}, seen bits {}", layout.seen);
                assert_same(&what, &cpu, &found);
                let events = cpu_events.0.into_inner().unwrap();
                assert_eq!(events, gpu_events.0.into_inner().unwrap(), "{what}");
                if strategy == PassPolicy::Auto {
                    // Lists first, then sweeps, then the last few unreached.
                    let kinds: Vec<Step> = events.iter().map(|e| e.2).collect();
                    for step in [Step::Frontier, Step::Sweep, Step::Remaining] {
                        assert!(kinds.contains(&step), "{what}: no {step:?} in {kinds:?}");
                    }
                }
            }
        }
    }
}

/// The layout of `space` in windows of `window` bytes with 2 bits an entry: for a GPU one byte
/// too small for 3.
fn two_bits<S: StateSpace>(gpu: &Gpu, space: &S, window: u64) -> Layout {
    let three = gpu.plan(space.size(), Some(window)).unwrap();
    let memory = Some(three.device_bytes() - 1);
    let two = (gpu.plan_with_tables(space.size(), 0, Some(window), memory)).unwrap();
    assert!(!two.seen && two.bytes() * 3 == three.bytes() * 2, "{two:?}");
    two
}

#[test]
fn two_bits_an_entry_give_the_same_checkpoints_and_tables() {
    let Some(gpu) = gpu() else { return };
    for (name, space) in ring_spaces() {
        // A checkpoint after every level: each level's smallest ranks as with seen bits.
        let every = |layout: &Layout| {
            let every = Every::default();
            let engine = gpu.engine(&space, layout, true).unwrap();
            search_on(
                &space,
                engine,
                &options(PassPolicy::Auto),
                Some(&every),
                None,
            )
            .unwrap();
            every.0.into_inner().unwrap()
        };
        let three = gpu.plan(space.size(), Some(24 << 10)).unwrap();
        let (seen, derived) = (every(&three), every(&two_bits(&gpu, &space, 24 << 10)));
        assert_eq!(seen.len(), derived.len(), "{name}");
        for (a, b) in seen.iter().zip(&derived) {
            assert!(a == b, "{name}: the checkpoint of level {}", a.1.len() - 1);
        }
    }
    // A twisty puzzle (no block moves: scans, top-down or bottom-up as the loop chooses).
    let diamond = twisty(&definition("skewb-diamond.tws"), "htm");
    let layout = two_bits(&gpu, &diamond, 16 << 10);
    let found = (gpu.search(&diamond, &layout, &options(PassPolicy::Auto), &Silent)).unwrap();
    let cpu = search(&diamond, &options(PassPolicy::Auto), &Silent);
    assert_same("skewb diamond 2 bits", &cpu, &found);
    // A directed graph (LX 8): without seen bits a level's smallest ranks come by walks back
    // through predecessors, which give each checkpoint as the seen bits do.
    // Scans, not lists, so that the middle levels' come by descent.
    let lx = directed_gens("(1,2,3,4,5,6,7,8); (1,2)");
    for strategy in [PassPolicy::TopDown, PassPolicy::BottomUp] {
        let checkpoints = |layout: &Layout| {
            let every = Every::default();
            let engine = gpu.engine(&lx, layout, true).unwrap();
            search_on(&lx, engine, &options(strategy), Some(&every), None).unwrap();
            every.0.into_inner().unwrap()
        };
        let three = gpu.plan(lx.size(), Some(4 << 10)).unwrap();
        let seen = checkpoints(&three);
        let two = checkpoints(&two_bits(&gpu, &lx, 4 << 10));
        assert!(seen == two, "LX 8 {strategy:?} with 2 bits an entry");
    }
    let odd = odd_coset();
    let layout = two_bits(&gpu, &odd, 3 << 10);
    let found = (gpu.search(&odd, &layout, &options(PassPolicy::Auto), &Silent)).unwrap();
    assert_same(
        "odd coset 2 bits",
        &search(&odd, &options(PassPolicy::Auto), &Silent),
        &found,
    );
}

/// The search in slabs, from disk and in host memory, with each slab's block moves swept on the
/// GPU gives the table, levels and antipodes of the CPU's search in memory: `space` cut into 2,
/// 3 and 7 slabs.
fn sweep_slabs<S: StateSpace>(gpu: &Gpu, what: &str, space: &S) {
    let options = options(PassPolicy::Auto);
    let want = search(space, &options, &Silent);
    let dir = scratch(&format!("gpu-slabs-{}", what.replace(' ', "-")));
    let best = slab_units(space)[0];
    for (slabs, unit) in [(2, best), (3, 32), (7, best)] {
        // One sweeper for both searches of a cut, its kernels built once (a driver compiles
        // each); pieces of 1,024 blocks, several a slab here.
        let mut sweeper = GpuSweeper::new(gpu, Some(24 << 10), 1 << 10);
        for in_memory in [false, true] {
            let cut = Cut {
                slabs,
                unit,
                list_bytes: 1 << 12,
                round_bytes: 1 << 16,
                in_memory,
            };
            let engine = (DiskEngine::new(space, cut, &dir, options.antipode_limit).unwrap())
                .sweeping_with(Box::new(&mut sweeper));
            let got = search_on(space, engine, &options, None, None).unwrap();
            let w = format!("{what} in {slabs} slabs of {unit} columns (in memory: {in_memory})");
            assert_same(&w, &want, &got);
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// [`sweep_slabs`] on a space of any family.
struct SweepSlabs<'a>(&'a Gpu, &'a str);

impl Visit for SweepSlabs<'_> {
    type Output = ();
    fn on<S: StateSpace>(self, space: &S) {
        sweep_slabs(self.0, self.1, space)
    }
}

#[test]
fn the_gpu_sweeps_slabs_from_disk_as_the_cpu_searches_in_memory() {
    let Some(gpu) = gpu() else { return };
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    for (request, _) in registry::samples(root) {
        let what = format!("{request:?}");
        registry::space(&request)
            .unwrap()
            .visit(SweepSlabs(&gpu, &what))
    }
}

#[test]
fn the_gpu_goes_on_from_every_checkpoint_to_the_cpu_result() {
    let Some(gpu) = gpu() else { return };
    for space in [
        Ring::turnstyle(8, Metric::Lrf).unwrap(),
        Ring::turnstyle(9, Metric::Flips).unwrap(),
    ] {
        let three = gpu.plan(space.size(), Some(3 << 10)).unwrap();
        let cpu = search(&space, &options(PassPolicy::Auto), &Silent);
        // With seen bits and with 2 bits an entry.
        for layout in [three, two_bits(&gpu, &space, 3 << 10)] {
            let every = Every::default();
            let engine = gpu.engine(&space, &layout, true).unwrap();
            let options = options(PassPolicy::Auto);
            let saved = search_on(&space, engine, &options, Some(&every), None).unwrap();
            assert_same("saving", &cpu, &saved);
            for (words, levels, antipodes) in every.0.into_inner().unwrap() {
                let at = levels.len() - 1;
                let resume = Resume {
                    table: Saved::Table(Box::new(DistanceTable::from_words(space.size(), words))),
                    levels,
                    antipodes,
                    pass: None,
                };
                let engine = gpu.engine(&space, &layout, true).unwrap();
                let resumed = search_on(&space, engine, &options, None, Some(resume)).unwrap();
                let what = format!(
                    "{} from level {at}, seen bits {}",
                    space.slug(),
                    layout.seen
                );
                assert_same(&what, &cpu, &resumed);
            }
        }
    }
}

#[test]
fn ring_shaders_number_the_moves_as_the_cpu_does() {
    // The sweep kernels apply residual moves by their CPU number.
    let Some(gpu) = gpu() else { return };
    for space in [
        Ring::turnstyle(9, Metric::Lrf).unwrap(),
        Ring::turnstyle(9, Metric::Flips).unwrap(),
        Ring::topspin(10, 4, Metric::Lrf).unwrap(),
    ] {
        let ranks: Vec<u64> = (0..space.size()).step_by(997).collect();
        assert_neighbours(&gpu, &space, &ranks);
    }
}

#[test]
fn a_table_left_on_the_device_writes_the_same_file_and_checkpoints() {
    let Some(gpu) = gpu() else { return };
    for (space, window) in [
        (Ring::turnstyle(9, Metric::Lrf).unwrap(), 3 << 10),
        (Ring::turnstyle(8, Metric::Flips).unwrap(), 768),
    ] {
        // Small windows: the chunks read back cross windows.
        let layout = gpu.plan(space.size(), Some(window)).unwrap();
        assert!(layout.windows > 2, "{}", space.slug());
        let run = |host_table: bool| {
            let every = Every::default();
            let mut engine = gpu.engine(&space, &layout, host_table).unwrap();
            let (levels, antipodes) = drive(
                &space,
                &mut engine,
                &options(PassPolicy::Auto),
                &Silent,
                Some(&every),
                None,
            )
            .unwrap();
            // The file written from the table where it lies.
            let mut file = Vec::new();
            engine
                .with_table(&mut |table| {
                    store::write(&mut file, &space.info(), &space.starts(), &levels, table, 0)
                        .map(|_| ())
                        .map_err(|e| e.to_string())
                })
                .unwrap();
            (levels, antipodes, file, every.0.into_inner().unwrap())
        };
        let host = run(true);
        let device = run(false);
        assert_eq!(host.0, device.0, "{}: levels", space.slug());
        assert_eq!(host.1, device.1, "{}: antipodes", space.slug());
        assert!(host.2 == device.2, "{}: distances file", space.slug());
        assert!(host.3 == device.3, "{}: checkpoints", space.slug());
        // And the CPU's file, byte for byte.
        let cpu = search(&space, &options(PassPolicy::Auto), &Silent);
        let mut file = Vec::new();
        store::write(
            &mut file,
            &space.info(),
            &space.starts(),
            &cpu.levels,
            &cpu.table,
            0,
        )
        .unwrap();
        assert!(file == device.2, "{}: the CPU's file", space.slug());
    }
}

/// A twisty puzzle from definition text, in `metric`.
fn twisty(text: &str, metric: &str) -> Twisty {
    let def = format::read(text, "test.tws").unwrap();
    let naming = Naming {
        family: "perm".into(),
        params: Default::default(),
        slug: "test".into(),
    };
    Twisty::new(&def, metric, naming).unwrap()
}

/// Our definitions in `puzzles/`.
fn definition(name: &str) -> String {
    std::fs::read_to_string(format!("{}/puzzles/{name}", env!("CARGO_MANIFEST_DIR"))).unwrap()
}

/// A puzzle of a large set (its `Set` line, `Solved` block where it has identical pieces, and
/// its parts of moves X and Y, each ending in a newline) beside small sets that take every other path of the twisty shader: D's
/// distinct pieces (their parity in the vector) and E's orientations (their sum in it) listed in
/// blocks, E's pieces following D's. Too large to search; probed.
fn beside_small_sets(set: &str, solved: &str, x: &str, y: &str) -> String {
    format!(
        "{set}Set D 3 1\nSet E 3 2\n{solved}\
         Move X\n{x}D\n2 3 1\nE\n2 3 1\n1 0 0\nEnd\n\
         Move Y\n{y}D\n2 1 3\nE\n2 1 3\n0 0 0\nEnd\n"
    )
}

/// The large sets whose coordinates the shader computes without tables (more than 2^28
/// values: the CPU does not try to list them): identical pieces (16!/2^8 arrangements),
/// orientations (3^18, the pieces identical), distinct pieces (13!/2, 64-bit ranks).
fn large_sets() -> Vec<String> {
    let cycle = |n: usize| -> String {
        let mut v: Vec<String> = (2..=n).map(|i| i.to_string()).collect();
        v.push("1".into());
        v.join(" ") + "\n"
    };
    let swap = |n: usize| -> String {
        let mut v: Vec<String> = (1..=n).map(|i| i.to_string()).collect();
        v.swap(0, 1);
        v.join(" ") + "\n"
    };
    let zeros =
        |n: usize, head: &str| format!("{head}{}\n", " 0".repeat(n - head.split(' ').count()));
    vec![
        beside_small_sets(
            "Set A 16 1\n",
            "Solved\nA\n1 1 2 2 3 3 4 4 5 5 6 6 7 7 8 8\nEnd\n",
            &format!("A\n{}", cycle(16)),
            &format!("A\n{}", swap(16)),
        ),
        beside_small_sets(
            "Set T 19 3\n",
            &format!("Solved\nT\n{}\nEnd\n", vec!["1"; 19].join(" ")),
            &format!("T\n{}{}", cycle(19), zeros(19, "1 2")),
            &format!("T\n{}{}", swap(19), zeros(19, "1 1 1")),
        ),
        beside_small_sets(
            "Set P 13 1\n",
            "",
            &format!("P\n{}", cycle(13)),
            &format!("P\n{}", swap(13)),
        ),
    ]
}

/// A small puzzle with the same features, to search: identical pieces (A), distinct ones
/// without (D) and with (T) orientations, E following D with its sum in the vector.
const FEATURES: &str = "Set A 6 1\nSet D 4 1\nSet E 4 2\nSet T 3 3\n\
    Solved\nA\n1 1 2 2 3 3\nEnd\n\
    Move X\nA\n2 3 4 5 6 1\nD\n2 3 4 1\nE\n2 3 4 1\n1 0 0 0\nT\n2 3 1\n1 1 1\nEnd\n\
    Move Y\nA\n2 1 3 4 5 6\nD\n2 3 1 4\nE\n2 3 1 4\n0 0 0 0\nT\n1 2 3\n2 1 0\nEnd\n";

/// Tiles whose orientations modulo 2 follow their positions (as TurnFour's): the shader moves
/// the reduced orientations.
const POTENTIAL: &str = "Set T 5 4\nSet U 2 1\n\
    Move A\nT\n4 1 2 3 5\n1 1 1 1 0\nU\n2 1\nEnd\n\
    Move B\nT\n1 2 5 3 4\n0 0 1 3 2\nEnd\n\
    Move C\nT\n1 2 3 4 5\n0 0 0 0 2\nEnd\n";

#[test]
fn the_twisty_shader_ranks_as_the_cpu_does() {
    let Some(gpu) = gpu() else { return };
    let mut spaces = vec![twisty(FEATURES, "htm"), twisty(FEATURES, "qtm")];
    spaces.extend(large_sets().iter().map(|text| twisty(text, "htm")));
    for name in ["cube-2x2x2.tws", "pyraminx.tws", "skewb.tws"] {
        spaces.push(twisty(&definition(name), "htm"));
    }
    // The coordinates without tables, with 64-bit ranks.
    assert!(spaces[2..5].iter().all(|s| s.size() > 1 << 32));
    for space in &spaces {
        assert_neighbours(&gpu, space, &spread_ranks(space.size(), 500));
    }
}

#[test]
fn the_twisty_shader_gives_the_cpu_tables() {
    let Some(gpu) = gpu() else { return };
    for metric in ["htm", "qtm"] {
        let space = twisty(FEATURES, metric);
        compare_space(&gpu, &space, metric, None, PassPolicy::Auto);
        compare_space(&gpu, &space, metric, Some(16 << 10), PassPolicy::BottomUp);
    }
    let potential = twisty(POTENTIAL, "htm");
    compare_space(&gpu, &potential, "potential", None, PassPolicy::Auto);
    let diamond = twisty(&definition("skewb-diamond.tws"), "htm");
    compare_space(&gpu, &diamond, "skewb diamond", None, PassPolicy::Auto);
}

#[test]
fn loops_a_driver_cuts_short_are_reported_not_published() {
    let Some(gpu) = gpu() else { return };
    // Every transposition and 3-cycle of 8 pieces (a twisty puzzle: a second set, never moved,
    // has orientations): 140 moves, about 500 loop iterations a state, beyond what lavapipe
    // lets an invocation run over a block of 32.
    let mut text = String::from("Set P 8 1\nSet Q 1 2\n");
    let mut moves = 0;
    for a in 1..=8usize {
        for b in a + 1..=8 {
            for c in std::iter::once(None).chain((b + 1..=8).map(Some)) {
                let mut from: Vec<usize> = (1..=8).collect();
                match c {
                    None => from.swap(a - 1, b - 1),
                    Some(c) => (from[a - 1], from[b - 1], from[c - 1]) = (b, c, a),
                }
                let from: Vec<String> = from.iter().map(|x| x.to_string()).collect();
                text += &format!("Move M{moves}\nP\n{}\nEnd\n", from.join(" "));
                moves += 1;
            }
        }
    }
    let space = twisty(&text, "htm");
    assert_eq!(space.move_count(), 140);
    let layout = gpu.plan(space.size(), None).unwrap();
    let cpu = search(&space, &options(PassPolicy::TopDown), &Silent);
    match gpu.search(&space, &layout, &options(PassPolicy::TopDown), &Silent) {
        Ok(found) => {
            assert!(
                !gpu.adapter().name.contains("llvmpipe"),
                "lavapipe ends such loops early"
            );
            assert_same("140 moves", &cpu, &found);
        }
        Err(e) => assert!(e.message().contains("cut the shader's loops short"), "{e}"),
    }
}

/// `space` reduced by its symmetries.
fn reduced<S: StateSpace + Clone + Send + 'static>(space: S) -> Reduced {
    let symmetry = space.capabilities().symmetry().unwrap();
    Reduced::new(Box::new(Erased(space)), symmetry).unwrap()
}

#[test]
fn the_reduced_shader_finds_every_entrys_neighbours_as_the_cpu_does() {
    let Some(gpu) = gpu() else { return };
    let spaces = [
        reduced(Ring::turnstyle(8, Metric::Lrf).unwrap()),
        reduced(Ring::turnstyle(9, Metric::Lrf).unwrap()),
        reduced(Ring::turnstyle(9, Metric::Flips).unwrap()),
        reduced(Ring::turnstyle(10, Metric::Flips).unwrap()),
        reduced(Ring::topspin(8, 4, Metric::Lrf).unwrap()),
        reduced(Sliding::new(3, 3).unwrap()),
        // Classes numbered as restricted-growth strings, by the family's shader of them.
        reduced(Hanoi::new(3, 6).unwrap()),
        reduced(Hanoi::new(4, 5).unwrap()),
        reduced(Hanoi::new(5, 6).unwrap()),
        reduced(Hanoi::new(8, 3).unwrap()),
    ];
    for space in &spaces {
        assert!(space.gpu_shader().is_some(), "{}", space.slug());
        let every: Vec<u64> = (0..space.size()).collect();
        assert_neighbours(&gpu, space, &every);
    }
}

#[test]
fn reduced_tables_on_the_gpu_give_the_cpus_files() {
    if gpu().is_none() {
        return;
    }
    let dir = scratch("reduced");
    let spaces: [&[&str]; 6] = [
        &["--puzzle", "turnstyle", "--n", "9"],
        // Lighter ranges (classes using fewer pegs), counted from the device.
        &["--puzzle", "hanoi", "--pegs", "5", "--discs", "7"],
        &["--puzzle", "perm", "--def", "puzzles/skewb-diamond.tws"],
        &["--puzzle", "turnstyle", "--n", "10", "--metric", "flips"],
        &["--puzzle", "topspin", "--n", "9"],
        &["--puzzle", "sliding", "--rows", "3", "--cols", "3"],
    ];
    for (i, space) in spaces.iter().enumerate() {
        fn with<'a>(space: &[&'a str], extra: &[&'a str]) -> Vec<&'a str> {
            (space.iter().copied())
                .chain(["--symmetry"])
                .chain(extra.iter().copied())
                .collect()
        }
        let (mut cpu, cpu_file) = run(
            &with(space, &["--backend", "cpu"]),
            &dir.join(format!("{i}-cpu")),
        );
        // Small windows, and 2 bits an entry (no seen bits: the last level by descent), in a
        // GPU memory between the two footprints the refusal of a tiny one names.
        let refused = Command::new(env!("CARGO_BIN_EXE_gpusearch"))
            .args(with(
                space,
                &["--backend", "gpu", "--gpu-memory", "1KB", "--dry-run"],
            ))
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&refused.stderr);
        let bytes: Vec<u64> = (err.split('(').filter_map(|p| p.split(" bytes)").next()))
            .filter_map(|n| n.parse().ok())
            .collect();
        assert!(bytes.len() >= 2 && bytes[1] < bytes[0], "{err}");
        let between = ((bytes[0] + bytes[1]) / 2).to_string();
        for (j, extra) in [
            &["--backend", "gpu", "--gpu-window-bytes", "3072"][..],
            &["--backend", "gpu", "--gpu-memory", &between],
        ]
        .iter()
        .enumerate()
        {
            let (mut gpu, gpu_file) = run(&with(space, extra), &dir.join(format!("{i}-gpu-{j}")));
            assert_eq!(
                cpu_file, gpu_file,
                "{space:?} {extra:?}: distances files differ"
            );
            assert_eq!(gpu["backend"], "gpu");
            without_timings(&mut cpu);
            without_timings(&mut gpu);
            assert_eq!(
                cpu, gpu,
                "{space:?} {extra:?}: reports differ beyond timings"
            );
        }
    }
}

#[test]
fn a_reduced_run_on_the_gpu_killed_goes_on_to_the_cpus_files() {
    if gpu().is_none() {
        return;
    }
    let dir = scratch("reduced-killed");
    // Entries of unlike weights: the weighing is taken from the device table after the resume.
    let args = [
        "--puzzle",
        "hanoi",
        "--pegs",
        "5",
        "--discs",
        "11",
        "--symmetry",
    ];
    let (mut cpu, cpu_file) = run(
        &[&args[..], &["--backend", "cpu"]].concat(),
        &dir.join("cpu"),
    );
    let killed = dir.join("gpu");
    let checkpoint = killed.join("checkpoint.gsc");
    let command = |resume: bool| {
        let mut c = Command::new(env!("CARGO_BIN_EXE_gpusearch"));
        c.args(args).args(["--backend", "gpu", "--quiet"]);
        c.args(["--checkpoint-every", "0", "--out", killed.to_str().unwrap()]);
        c.args(resume.then_some("--resume"));
        c
    };
    let kills = common::kill_after_checkpoints(command, &checkpoint, &[0, 200]);
    assert!(kills >= 1, "never killed");
    // The last resumed run may have finished before its kill.
    if checkpoint.exists() {
        assert!(
            command(true).status().unwrap().success(),
            "the resumed run failed"
        );
    }
    let text = std::fs::read_to_string(killed.join("report.json")).unwrap();
    let mut gpu: Value = serde_json::from_str(&text).unwrap();
    let gpu_file = std::fs::read(killed.join("distances.gsd")).unwrap();
    assert_eq!(cpu_file, gpu_file, "distances files differ");
    without_timings(&mut cpu);
    without_timings(&mut gpu);
    assert_eq!(cpu, gpu, "reports differ beyond timings");
    let _ = std::fs::remove_dir_all(&dir);
}
