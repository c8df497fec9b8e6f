use std::path::PathBuf;

use clap::CommandFactory;

use super::{Cli, Failure};
use crate::registry::Registry;

#[derive(Debug, clap::Args)]
pub(super) struct ReferenceArgs {
    /// The folder the pages go in. Only pages this command wrote are ever replaced or removed
    /// (it lists them in DIR/.ticklab-reference), never a link or a file of the user's.
    #[arg(value_name = "DIR", default_value = "docs/book/src/reference")]
    folder: PathBuf,
    /// Compare the folder's pages with the code's instead of writing them; exit 1 if they differ.
    #[arg(long)]
    check: bool,
}

/// Every page `ticklab reference` writes for `registry`'s designs: the scenario format's, the
/// command line's, and the JSON Schema last.
pub fn reference_pages(registry: &Registry) -> Vec<crate::reference::Page> {
    let mut pages = crate::reference::pages(registry);
    let schema = pages.pop();
    pages.push(crate::reference::command_page(&help_texts()));
    pages.extend(schema);
    pages
}

/// Writes the reference pages and the scenario schema, or with `--check` compares them.
pub(super) fn reference_command(registry: &Registry, args: &ReferenceArgs) -> Result<(), Failure> {
    let pages = reference_pages(registry);
    if args.check {
        let differences = crate::reference::compare_pages(&args.folder, &pages);
        if differences.is_empty() {
            note!("{}: the pages match the code", args.folder.display());
            return Ok(());
        }
        for difference in &differences {
            note!("{difference}");
        }
        note!(
            "the reference pages differ from the code; run `ticklab reference {}` and commit them",
            args.folder.display()
        );
        return Err(Failure::Expectation);
    }
    let written = crate::reference::write_pages(&args.folder, &pages)
        .map_err(|error| Failure::Invalid(error.to_string()))?;
    for left in &written.left {
        note!(
            "{}: left in place, a page the code no longer makes that was changed after it was \
             written; remove it yourself if it is not needed",
            left.display()
        );
    }
    note!(
        "{}: {} pages, {} changed",
        args.folder.display(),
        pages.len(),
        written.changed.len()
    );
    Ok(())
}

/// Every command's `--help`, `ticklab` first, at a fixed width so the page is the same
/// everywhere.
pub fn help_texts() -> Vec<(String, String)> {
    const WIDTH: usize = 100;
    let mut command = Cli::command().term_width(WIDTH).max_term_width(WIDTH);
    command.build();
    let mut texts = vec![(
        "ticklab".to_string(),
        command.render_long_help().to_string(),
    )];
    for sub in command.get_subcommands_mut() {
        let name = format!("ticklab {}", sub.get_name());
        let help = sub
            .clone()
            .term_width(WIDTH)
            .max_term_width(WIDTH)
            .render_long_help()
            .to_string();
        texts.push((name, help));
    }
    texts
}
