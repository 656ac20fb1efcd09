//! What the packages say of diskscope before anyone installs it. Cargo.toml's `description` is
//! the `.deb`'s synopsis (cargo-deb writes it as the first line of `Description:`) and
//! crates.io's one-liner: Debian Policy 5.6.13 and 3.4.1 want it one line "certainly under 80
//! characters". cargo-deb wraps a longer one, and the wrapped rest turns into the first line
//! of the long description, so `apt show` and `dpkg -l` cut it mid-phrase.

#[test]
fn the_description_is_one_debian_synopsis_line_under_80_characters() {
    let synopsis = env!("CARGO_PKG_DESCRIPTION");
    assert!(
        synopsis.chars().count() < 80,
        "{} characters: {synopsis:?}",
        synopsis.chars().count()
    );
    assert!(!synopsis.contains('\n'), "{synopsis:?}");
    assert!(
        !synopsis.ends_with('.'),
        "a synopsis is a phrase: {synopsis:?}"
    );
}
