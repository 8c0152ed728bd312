//! Solves one spot with postflop-solver for benchmarks/bench_spots.py and prints one JSON
//! object: the memory its tables take, the iterations, seconds (its own clock) and CPU seconds
//! (/proc/self/stat) at which each exploitability target was first reached (exploitability
//! checked every 10 iterations, as its `solve` does), the peak resident memory, and the root's
//! equity, EV and action frequencies (OOP's, weighted by its normalised range) at the end.
//!
//! Usage: solve_spot TREE_ARGS... BOARD OOP_RANGE IP_RANGE COMPRESSED TARGETS MAX_ITERATIONS
//! TREE_ARGS are tree_lines.rs's 20; COMPRESSED is 0 (32-bit float) or 1 (16-bit integers);
//! TARGETS are fractions of the pot, comma-separated (0.005,0.003,0.001). Threads: rayon's
//! (RAYON_NUM_THREADS).
use postflop_solver::*;
use std::env;
use std::fs;
use std::process::exit;
use std::time::Instant;

fn fail(message: String) -> ! {
    eprintln!("error: {message}");
    exit(2);
}

fn sizes(bet: &str, raise: &str) -> BetSizeOptions {
    BetSizeOptions::try_from((bet, raise)).unwrap_or_else(|e| fail(e))
}

fn donk(text: &str) -> Option<DonkSizeOptions> {
    match text {
        "-" => None,
        _ => Some(DonkSizeOptions::try_from(text).unwrap_or_else(|e| fail(e))),
    }
}

fn number<T: std::str::FromStr>(text: &str) -> T {
    text.parse().unwrap_or_else(|_| fail(format!("not a number: {text}")))
}

/// User plus system CPU seconds of this process (USER_HZ = 100 ticks a second on Linux).
fn cpu_seconds() -> f64 {
    let stat = fs::read_to_string("/proc/self/stat").unwrap_or_default();
    let after = stat.rsplit(')').next().unwrap_or("");
    let fields: Vec<&str> = after.split_whitespace().collect();
    // fields after the command: state is [0], utime [11], stime [12]
    let ticks = |i: usize| fields.get(i).and_then(|f| f.parse::<f64>().ok()).unwrap_or(0.0);
    (ticks(11) + ticks(12)) / 100.0
}

/// The peak resident memory in bytes (VmHWM).
fn peak_rss() -> u64 {
    let status = fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find(|l| l.starts_with("VmHWM:"))
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|kb| kb.parse::<u64>().ok())
        .map_or(0, |kb| kb * 1024)
}

fn main() {
    let args: Vec<String> = env::args().skip(1).collect();
    if args.len() != 26 {
        fail(format!("26 arguments expected, got {} (see the source)", args.len()));
    }
    let initial_state = match args[0].as_str() {
        "flop" => BoardState::Flop,
        "turn" => BoardState::Turn,
        "river" => BoardState::River,
        other => fail(format!("bad street {other}")),
    };
    let starting_pot: i32 = number(&args[1]);
    let tree_config = TreeConfig {
        initial_state,
        starting_pot,
        effective_stack: number(&args[2]),
        rake_rate: 0.0,
        rake_cap: 0.0,
        flop_bet_sizes: [sizes(&args[6], &args[7]), sizes(&args[8], &args[9])],
        turn_bet_sizes: [sizes(&args[10], &args[11]), sizes(&args[12], &args[13])],
        river_bet_sizes: [sizes(&args[14], &args[15]), sizes(&args[16], &args[17])],
        turn_donk_sizes: donk(&args[18]),
        river_donk_sizes: donk(&args[19]),
        add_allin_threshold: number(&args[3]),
        force_allin_threshold: number(&args[4]),
        merging_threshold: number(&args[5]),
    };
    let board = &args[20];
    let card = |i: usize| match board.get(i..i + 2) {
        Some(c) => card_from_str(c).unwrap_or_else(|e| fail(e)),
        None => NOT_DEALT,
    };
    let card_config = CardConfig {
        range: [
            args[21].parse().unwrap_or_else(|e| fail(e)),
            args[22].parse().unwrap_or_else(|e| fail(e)),
        ],
        flop: flop_from_str(&board[..6]).unwrap_or_else(|e| fail(e)),
        turn: card(6),
        river: card(8),
    };
    let compressed = args[23] == "1";
    let targets: Vec<f32> = args[24].split(',').map(number).collect();
    let max_iterations: u32 = number(&args[25]);

    let wall0 = Instant::now();
    let action_tree = ActionTree::new(tree_config).unwrap_or_else(|e| fail(e));
    let mut game = PostFlopGame::with_config(card_config, action_tree).unwrap_or_else(|e| fail(e));
    let (memory_f32, memory_i16) = game.memory_usage();
    game.allocate_memory(compressed);
    let build_s = wall0.elapsed().as_secs_f64();

    let cpu0 = cpu_seconds();
    let start = Instant::now();
    let mut reached = Vec::new();
    let mut exploitability = compute_exploitability(&game);
    let mut iterations = 0;
    let mut next = 0;
    while next < targets.len() && iterations < max_iterations {
        solve_step(&game, iterations);
        iterations += 1;
        if iterations % 10 == 0 || iterations == max_iterations {
            exploitability = compute_exploitability(&game);
            while next < targets.len() && exploitability <= targets[next] * starting_pot as f32 {
                reached.push(format!(
                    "{{\"target\": {}, \"iterations\": {}, \"seconds\": {:.6}, \"cpu_seconds\": {:.2}, \"exploitability\": {}}}",
                    targets[next], iterations, start.elapsed().as_secs_f64(),
                    cpu_seconds() - cpu0, exploitability));
                next += 1;
            }
        }
    }
    let seconds = start.elapsed().as_secs_f64();
    let cpu = cpu_seconds() - cpu0;
    finalize(&mut game);

    game.cache_normalized_weights();
    let average = |player: usize, values: &[f32]| {
        compute_average(values, game.normalized_weights(player)) as f64
    };
    let equity = [average(0, &game.equity(0)), average(1, &game.equity(1))];
    let ev = [average(0, &game.expected_values(0)), average(1, &game.expected_values(1))];
    let actions = game.available_actions();
    let strategy = game.strategy();
    let hands = game.private_cards(0).len();
    let weights = game.normalized_weights(0);
    let frequencies: Vec<String> = (0..actions.len())
        .map(|a| {
            let f = compute_average(&strategy[a * hands..(a + 1) * hands], weights);
            format!("[\"{:?}\", {}]", actions[a], f)
        })
        .collect();
    println!(
        "{{\"threads\": {}, \"compressed\": {}, \"memory_bytes\": {}, \"build_seconds\": {:.6}, \
         \"iterations\": {}, \"seconds\": {:.6}, \"cpu_seconds\": {:.2}, \"exploitability\": {}, \
         \"reached\": [{}], \"peak_rss\": {}, \"equity\": [{}, {}], \"ev\": [{}, {}], \
         \"root_frequencies\": [{}]}}",
        rayon::current_num_threads(), compressed,
        if compressed { memory_i16 } else { memory_f32 }, build_s, iterations, seconds, cpu,
        exploitability, reached.join(", "), peak_rss(), equity[0], equity[1], ev[0], ev[1],
        frequencies.join(", "));
}
