//! `rulebook serve`: the web table (see the library's `serve` module).

use crate::cli::{Cli, ServeArgs};
use crate::locate::games_dir;
use std::process::ExitCode;

pub fn run(cli: &Cli, args: &ServeArgs) -> Result<ExitCode, String> {
    let addr =
        args.addr.parse().map_err(|_| format!("--addr `{}` is not an address like 127.0.0.1:8080", args.addr))?;
    let config = rulebook::serve::Config {
        games_dir: games_dir(cli),
        addr,
        data: args.data.clone(),
        bot_delay: std::time::Duration::from_millis(args.bot_delay),
        keep_finished: std::time::Duration::from_secs(args.keep_finished),
    };
    rulebook::serve::run(&config, |bound| {
        // Tests and scripts read this line for the port (with --addr HOST:0).
        println!("rulebook serve: listening on http://{bound}/ (games from {})", config.games_dir.display());
        use std::io::Write;
        let _ = std::io::stdout().flush();
    })?;
    Ok(ExitCode::SUCCESS)
}
