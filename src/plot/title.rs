//! A plot's title strip: the scenario, its model and seed, and its whole description, broken
//! into as many lines as it takes.

use plotters::prelude::*;

use super::collect::Collected;
use super::error::PlotError;
use super::style::{Area, FONT, TITLE_HEIGHT_PX};

/// Splits the canvas into a title strip and `panels` panels of equal height, and writes the
/// title: the scenario, its seed, and its whole description, on as many lines as it takes.
pub fn layout<'a>(
    root: &Area<'a>,
    collected: &Collected,
    panels: usize,
) -> Result<Vec<Area<'a>>, PlotError> {
    root.fill(&WHITE)?;
    let (title, body) = root.split_vertically(title_height_px(collected));
    if let Some(start) = &collected.start {
        title.draw_text(
            &format!(
                "{} ({} model, seed {})",
                start.source, start.model, start.seed
            ),
            &(FONT, 18).into_font().style(FontStyle::Bold).color(&BLACK),
            (10, 6),
        )?;
        for (index, line) in about_lines(&start.about).iter().enumerate() {
            title.draw_text(
                line,
                &(FONT, 14).into_font().color(&BLACK),
                (10, 30 + ABOUT_LINE_PX as i32 * index as i32),
            )?;
        }
    }
    Ok(body.split_evenly((panels, 1)))
}

/// Characters of a description that fit across the canvas at its 14 px font.
const ABOUT_CHARS_MAX: usize = 165;
/// Height of each line of a description after the first.
const ABOUT_LINE_PX: u32 = 17;

/// The title strip's height: [`TITLE_HEIGHT_PX`] for a description of one line, and a line more
/// for each line more it takes.
pub fn title_height_px(collected: &Collected) -> u32 {
    let lines = collected
        .start
        .as_ref()
        .map_or(1, |start| about_lines(&start.about).len().max(1));
    TITLE_HEIGHT_PX + ABOUT_LINE_PX * (lines as u32 - 1)
}

/// A description broken at words into lines that fit across the canvas, none of it left out (a
/// word longer than a line is cut into lines of its own).
fn about_lines(about: &str) -> Vec<String> {
    let mut lines: Vec<String> = Vec::new();
    let mut line = String::new();
    for word in about.split_whitespace() {
        let mut word = word.to_string();
        loop {
            let room = ABOUT_CHARS_MAX - line.chars().count().min(ABOUT_CHARS_MAX);
            let needed = word.chars().count() + usize::from(!line.is_empty());
            if needed <= room {
                if !line.is_empty() {
                    line.push(' ');
                }
                line.push_str(&word);
                break;
            }
            if !line.is_empty() {
                lines.push(std::mem::take(&mut line));
                continue;
            }
            let head: String = word.chars().take(ABOUT_CHARS_MAX).collect();
            word = word.chars().skip(ABOUT_CHARS_MAX).collect();
            lines.push(head);
        }
    }
    if !line.is_empty() || lines.is_empty() {
        lines.push(line);
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_long_description_is_broken_at_words_into_lines_with_nothing_left_out() {
        let short = "A laptop sleeps";
        assert_eq!(about_lines(short), [short]);
        let long = "word, ".repeat(60);
        let lines = about_lines(&long);
        assert_eq!(lines.len(), 3, "{lines:?}");
        assert!(
            lines
                .iter()
                .all(|line| line.chars().count() <= ABOUT_CHARS_MAX)
        );
        assert_eq!(lines.join(" "), long.trim_end());
        let unbroken = "x".repeat(ABOUT_CHARS_MAX + 10);
        assert_eq!(about_lines(&unbroken).concat(), unbroken);
    }
}
