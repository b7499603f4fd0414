//! Secrets from the operating system's generator: the tokens of private links (128 bits, so
//! a link cannot be guessed), table ids and game seeds.

/// Bytes in a link's token (128 bits).
const TOKEN_BYTES: usize = 16;

/// A new link token: 32 hex digits, 128 bits from the OS generator.
pub fn new_token() -> Result<String, String> {
    random_hex(TOKEN_BYTES)
}

/// A new table id (public, so shorter: 64 bits).
pub fn new_table_id() -> Result<String, String> {
    random_hex(8)
}

/// A new game seed.
pub fn new_seed() -> Result<u64, String> {
    getrandom::u64().map_err(|e| format!("the OS random generator failed: {e}"))
}

fn random_hex(bytes: usize) -> Result<String, String> {
    let mut buf = vec![0u8; bytes];
    getrandom::fill(&mut buf).map_err(|e| format!("the OS random generator failed: {e}"))?;
    Ok(buf.iter().map(|b| format!("{b:02x}")).collect())
}

/// Whether a text could be a token (so other text is refused before any lookup).
pub fn looks_like_token(text: &str) -> bool {
    text.len() == 2 * TOKEN_BYTES && text.bytes().all(|b| b.is_ascii_hexdigit() && !b.is_ascii_uppercase())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_are_128_bit_hex_and_differ() {
        let a = new_token().unwrap();
        let b = new_token().unwrap();
        assert!(looks_like_token(&a) && looks_like_token(&b));
        assert_ne!(a, b);
        assert!(!looks_like_token("../../etc/passwd"));
        assert_eq!(new_table_id().unwrap().len(), 16);
    }
}
