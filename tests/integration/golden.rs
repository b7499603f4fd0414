//! Golden logs: the full event log of one seeded random game per bundled game and player
//! count, so any change of rules or engine behaviour shows up in review.

use rulebook::sim::play_one;

#[test]
fn golden_logs() {
    insta::glob!("../../games", "*/game.toml", |path| {
        let folder = path.parent().expect("game folder");
        let loaded = rulebook::load_game(folder, &rulebook::LoadOptions::default());
        let game = loaded.game.unwrap_or_else(|| panic!("{} does not load", folder.display()));
        for players in game.rules.min_players..=game.rules.max_players {
            let seed = 1;
            let record = play_one(&game, players, 0, seed, &rulebook::bot::BotTable::default())
                .unwrap_or_else(|f| panic!("{f}"));
            let mut s = game.start(players, seed).unwrap();
            for m in &record.moves {
                s.apply(m.player, &m.option).unwrap();
            }
            let mut text = format!("# {} — {players} players, seed {seed}, random bots\n", game.rules.title);
            text.push_str(&s.log_for(None).join("\n"));
            insta::assert_snapshot!(format!("{}_{players}_players", game.rules.name), text);
        }
    });
}
