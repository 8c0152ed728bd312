//! Prints every root-to-leaf action line of postflop-solver's action tree for one spot, one
//! line per leaf, in the format of rcfr's `rcfr.games.holdem.action_tree.lines()`: actions
//! joined by " / ", each `fold`, `check`, `call`, `bet N`, `raise N`, `allin N` or `deal` (a
//! chance node: the next card, not expanded), sorted.
//!
//! Usage (the sizes as postflop-solver parses them; a donk of "-" is None):
//!   tree_lines STREET POT STACK ADD_ALLIN FORCE_ALLIN MERGING \
//!              FLOP_OOP_BET FLOP_OOP_RAISE FLOP_IP_BET FLOP_IP_RAISE \
//!              TURN_OOP_BET TURN_OOP_RAISE TURN_IP_BET TURN_IP_RAISE \
//!              RIVER_OOP_BET RIVER_OOP_RAISE RIVER_IP_BET RIVER_IP_RAISE TURN_DONK RIVER_DONK
//! STREET is flop, turn or river. benchmarks/postflop_solver/tree_lines.py runs it on spot files.
use postflop_solver::*;
use std::env;
use std::process::exit;

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

fn name(action: &Action) -> String {
    match action {
        Action::Fold => "fold".into(),
        Action::Check => "check".into(),
        Action::Call => "call".into(),
        Action::Bet(n) => format!("bet {n}"),
        Action::Raise(n) => format!("raise {n}"),
        Action::AllIn(n) => format!("allin {n}"),
        other => fail(format!("unexpected action {other:?}")),
    }
}

/// Depth first through the public API. The API skips chance nodes, so a deal is written where
/// the node reached is a chance node; a call that reaches a terminal before the river was a
/// called all-in, and the remaining streets are dealt (postflop-solver's chain of chance nodes
/// down to the showdown).
fn walk(tree: &mut ActionTree, street: usize, line: &mut Vec<String>, out: &mut Vec<String>) {
    if tree.is_terminal_node() {
        out.push(line.join(" / "));
        return;
    }
    let actions = tree.available_actions().to_vec();
    for action in actions {
        tree.play(action).unwrap();
        line.push(name(&action));
        let mut deals = 0;
        if tree.is_chance_node() {
            deals = 1;
        } else if tree.is_terminal_node() && action == Action::Call {
            deals = 2 - street;
        }
        for _ in 0..deals {
            line.push("deal".into());
        }
        walk(tree, street + deals, line, out);
        line.truncate(line.len() - 1 - deals);
        tree.undo().unwrap();
    }
}

fn main() {
    let args: Vec<String> = env::args().skip(1).collect();
    if args.len() != 20 {
        fail(format!("20 arguments expected, got {} (see the source)", args.len()));
    }
    let (initial_state, street) = match args[0].as_str() {
        "flop" => (BoardState::Flop, 0),
        "turn" => (BoardState::Turn, 1),
        "river" => (BoardState::River, 2),
        other => fail(format!("bad street {other}")),
    };
    let config = TreeConfig {
        initial_state,
        starting_pot: number(&args[1]),
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
    let mut tree = ActionTree::new(config).unwrap_or_else(|e| fail(e));
    let mut out = Vec::new();
    walk(&mut tree, street, &mut Vec::new(), &mut out);
    out.sort();
    for line in out {
        println!("{line}");
    }
}
