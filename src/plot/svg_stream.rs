//! A plotters drawing backend that writes SVG to any [`Write`] as the picture is drawn, so no
//! picture is held whole in memory: `ticklab plot -o` streams into its file, `ticklab report`
//! into its page.
//!
//! It writes the elements plotters' own SVG backend writes, one a line and in the same form, so
//! the pictures, and the snapshots of them, stay the same. plotters' elements cannot stop halfway
//! through a picture, so a write that fails is kept, nothing more is written, and
//! [`DrawingBackend::present`] reports it; a picture is bounded, so finishing it is cheap.

use std::fmt;
use std::io::{self, BufWriter, Write};

use plotters::coord::Shift;
use plotters::prelude::{DrawingArea, DrawingAreaErrorKind, IntoDrawingArea};
use plotters_backend::text_anchor::{HPos, VPos};
use plotters_backend::{
    BackendColor, BackendCoord, BackendStyle, BackendTextStyle, DrawingBackend, DrawingErrorKind,
    FontStyle, FontTransform,
};

use super::error::PlotError;
use crate::output::CountingWriter;

/// Draws a picture of `size_px` (width, height) with `draw`, writing its SVG into `out` as it
/// goes, with `comment` after the opening tag if given. Returns the bytes written.
pub fn draw_svg(
    out: &mut dyn Write,
    size_px: (u32, u32),
    comment: Option<&str>,
    draw: impl FnOnce(&DrawingArea<SvgStream<'_>, Shift>) -> Result<(), PlotError>,
) -> Result<u64, PlotError> {
    let mut counted = CountingWriter::new(out);
    {
        let mut stream = SvgStream::new(&mut counted, size_px);
        if let Some(comment) = comment {
            stream.comment(comment);
        }
        let root = stream.into_drawing_area();
        draw(&root)?;
        root.present().map_err(|error| match error {
            DrawingAreaErrorKind::BackendError(DrawingErrorKind::DrawingError(error)) => {
                PlotError::Write(error)
            }
            other => PlotError::from(other),
        })?;
    }
    Ok(counted.bytes())
}

/// An SVG document being written: the opening tag when made, each element as it is drawn, the
/// closing tag on [`DrawingBackend::present`].
pub struct SvgStream<'a> {
    // Buffered: a picture is thousands of short writes, and `out` may be a file or stdout.
    out: BufWriter<&'a mut dyn Write>,
    size_px: (u32, u32),
    /// The first write that failed; nothing is written after it.
    failed: Option<io::Error>,
    closed: bool,
}

impl<'a> SvgStream<'a> {
    /// Starts a document of `size_px` (width, height) in `out`.
    pub fn new(out: &'a mut dyn Write, size_px: (u32, u32)) -> Self {
        let mut stream = SvgStream {
            out: BufWriter::new(out),
            size_px,
            failed: None,
            closed: false,
        };
        let (width_px, height_px) = size_px;
        stream.put(format_args!(
            "<svg width=\"{width_px}\" height=\"{height_px}\" viewBox=\"0 0 {width_px} \
             {height_px}\" xmlns=\"http://www.w3.org/2000/svg\">\n"
        ));
        stream
    }

    /// Writes an XML comment, which cannot hold `--`.
    pub fn comment(&mut self, text: &str) {
        debug_assert!(
            !text.contains("--"),
            "an XML comment cannot hold `--`: {text}"
        );
        self.put(format_args!("<!-- {text} -->\n"));
    }

    fn put(&mut self, text: fmt::Arguments<'_>) {
        if self.failed.is_none()
            && let Err(error) = self.out.write_fmt(text)
        {
            self.failed = Some(error);
        }
    }

    /// Writes `points="x,y x,y "`, each point as it comes.
    fn put_points(&mut self, points: impl IntoIterator<Item = BackendCoord>) {
        self.put(format_args!("points=\""));
        for (x, y) in points {
            self.put(format_args!("{x},{y} "));
        }
        self.put(format_args!("\""));
    }
}

impl fmt::Debug for SvgStream<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SvgStream")
            .field("size_px", &self.size_px)
            .field("failed", &self.failed)
            .field("closed", &self.closed)
            .finish_non_exhaustive()
    }
}

/// A colour as SVG writes it, `#RRGGBB`; its alpha goes in an `opacity` of its own.
struct Hex(BackendColor);

impl fmt::Display for Hex {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (red, green, blue) = self.0.rgb;
        write!(f, "#{red:02X}{green:02X}{blue:02X}")
    }
}

/// Text with XML's special characters escaped, fit for an element's content or an attribute.
struct Escaped<'t>(&'t str);

impl fmt::Display for Escaped<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut rest = self.0;
        while let Some(at) = rest.find(['<', '>', '&', '"', '\'']) {
            let entity = match rest.as_bytes()[at] {
                b'<' => "&lt;",
                b'>' => "&gt;",
                b'&' => "&amp;",
                b'"' => "&quot;",
                _ => "&apos;",
            };
            f.write_str(&rest[..at])?;
            f.write_str(entity)?;
            rest = &rest[at + 1..];
        }
        f.write_str(rest)
    }
}

/// A shape's `fill` or `stroke`: a colour, or none.
enum Paint {
    None,
    Color(BackendColor),
}

impl fmt::Display for Paint {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Paint::None => f.write_str("none"),
            Paint::Color(color) => Hex(*color).fmt(f),
        }
    }
}

/// A filled shape's `fill` and `stroke`, or an outlined one's.
fn fill_and_stroke(color: BackendColor, fill: bool) -> (Paint, Paint) {
    if fill {
        (Paint::Color(color), Paint::None)
    } else {
        (Paint::None, Paint::Color(color))
    }
}

type Drawn = Result<(), DrawingErrorKind<io::Error>>;

impl DrawingBackend for SvgStream<'_> {
    type ErrorType = io::Error;

    fn get_size(&self) -> (u32, u32) {
        self.size_px
    }

    fn ensure_prepared(&mut self) -> Drawn {
        Ok(())
    }

    fn present(&mut self) -> Drawn {
        if !self.closed {
            self.closed = true;
            self.put(format_args!("</svg>\n"));
            if self.failed.is_none()
                && let Err(error) = self.out.flush()
            {
                self.failed = Some(error);
            }
        }
        match self.failed.take() {
            Some(error) => Err(DrawingErrorKind::DrawingError(error)),
            None => Ok(()),
        }
    }

    fn draw_pixel(&mut self, (x, y): BackendCoord, color: BackendColor) -> Drawn {
        if color.alpha > 0.0 {
            self.put(format_args!(
                "<rect x=\"{x}\" y=\"{y}\" width=\"1\" height=\"1\" stroke=\"none\" \
                 opacity=\"{}\" fill=\"{}\"/>\n",
                color.alpha,
                Hex(color)
            ));
        }
        Ok(())
    }

    fn draw_line<S: BackendStyle>(
        &mut self,
        (x1, y1): BackendCoord,
        (x2, y2): BackendCoord,
        style: &S,
    ) -> Drawn {
        let color = style.color();
        if color.alpha > 0.0 {
            self.put(format_args!(
                "<line opacity=\"{}\" stroke=\"{}\" stroke-width=\"{}\" x1=\"{x1}\" y1=\"{y1}\" \
                 x2=\"{x2}\" y2=\"{y2}\"/>\n",
                color.alpha,
                Hex(color),
                style.stroke_width()
            ));
        }
        Ok(())
    }

    fn draw_rect<S: BackendStyle>(
        &mut self,
        (left, top): BackendCoord,
        (right, bottom): BackendCoord,
        style: &S,
        fill: bool,
    ) -> Drawn {
        let color = style.color();
        if color.alpha > 0.0 {
            let (fill, stroke) = fill_and_stroke(color, fill);
            self.put(format_args!(
                "<rect x=\"{left}\" y=\"{top}\" width=\"{}\" height=\"{}\" opacity=\"{}\" \
                 fill=\"{fill}\" stroke=\"{stroke}\"/>\n",
                right - left,
                bottom - top,
                color.alpha
            ));
        }
        Ok(())
    }

    fn draw_path<S: BackendStyle, I: IntoIterator<Item = BackendCoord>>(
        &mut self,
        path: I,
        style: &S,
    ) -> Drawn {
        let color = style.color();
        if color.alpha > 0.0 {
            self.put(format_args!(
                "<polyline fill=\"none\" opacity=\"{}\" stroke=\"{}\" stroke-width=\"{}\" ",
                color.alpha,
                Hex(color),
                style.stroke_width()
            ));
            self.put_points(path);
            self.put(format_args!("/>\n"));
        }
        Ok(())
    }

    fn fill_polygon<S: BackendStyle, I: IntoIterator<Item = BackendCoord>>(
        &mut self,
        vertices: I,
        style: &S,
    ) -> Drawn {
        let color = style.color();
        if color.alpha > 0.0 {
            self.put(format_args!(
                "<polygon opacity=\"{}\" fill=\"{}\" ",
                color.alpha,
                Hex(color)
            ));
            self.put_points(vertices);
            self.put(format_args!("/>\n"));
        }
        Ok(())
    }

    fn draw_circle<S: BackendStyle>(
        &mut self,
        (x, y): BackendCoord,
        radius_px: u32,
        style: &S,
        fill: bool,
    ) -> Drawn {
        let color = style.color();
        if color.alpha > 0.0 {
            let (fill, stroke) = fill_and_stroke(color, fill);
            self.put(format_args!(
                "<circle cx=\"{x}\" cy=\"{y}\" r=\"{radius_px}\" opacity=\"{}\" fill=\"{fill}\" \
                 stroke=\"{stroke}\" stroke-width=\"{}\"/>\n",
                color.alpha,
                style.stroke_width()
            ));
        }
        Ok(())
    }

    fn draw_text<S: BackendTextStyle>(
        &mut self,
        text: &str,
        style: &S,
        (x, y): BackendCoord,
    ) -> Drawn {
        let color = style.color();
        if color.alpha == 0.0 {
            return Ok(());
        }
        let anchor = match style.anchor().h_pos {
            HPos::Left => "start",
            HPos::Center => "middle",
            HPos::Right => "end",
        };
        // The baseline's offset from `y`, so the anchor's vertical position is where `y` says.
        let dy = match style.anchor().v_pos {
            VPos::Top => "0.76em",
            VPos::Center => "0.5ex",
            VPos::Bottom => "-0.5ex",
        };
        // plotters' sizes are in its own units, 1.24 to an SVG pixel, as its SVG backend has it.
        self.put(format_args!(
            "<text x=\"{x}\" y=\"{y}\" dy=\"{dy}\" text-anchor=\"{anchor}\" font-family=\"{}\" \
             font-size=\"{}\" opacity=\"{}\" fill=\"{}\"",
            Escaped(style.family().as_str()),
            style.size() / 1.24,
            color.alpha,
            Hex(color)
        ));
        match style.style() {
            FontStyle::Normal => {}
            FontStyle::Bold => self.put(format_args!(" font-weight=\"bold\"")),
            other => self.put(format_args!(" font-style=\"{}\"", other.as_str())),
        }
        let degrees = match style.transform() {
            FontTransform::None => None,
            FontTransform::Rotate90 => Some(90),
            FontTransform::Rotate180 => Some(180),
            FontTransform::Rotate270 => Some(270),
        };
        if let Some(degrees) = degrees {
            self.put(format_args!(" transform=\"rotate({degrees}, {x}, {y})\""));
        }
        self.put(format_args!(">\n{}\n</text>\n", Escaped(text)));
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use std::io::{self, Write};

    use plotters::coord::Shift;
    use plotters::prelude::*;

    use super::{PlotError, SvgStream, draw_svg};

    fn drawn(
        draw: impl FnOnce(&DrawingArea<SvgStream<'_>, Shift>) -> Result<(), PlotError>,
    ) -> String {
        let mut svg = Vec::new();
        let bytes = draw_svg(&mut svg, (40, 30), Some("a note"), draw).unwrap();
        assert_eq!(bytes, svg.len() as u64);
        String::from_utf8(svg).unwrap()
    }

    #[test]
    fn elements_come_out_in_the_order_drawn_and_text_is_escaped() {
        let svg = drawn(|area| {
            area.draw(&Rectangle::new([(1, 2), (11, 7)], RED.mix(0.5).filled()))?;
            area.draw(&PathElement::new(
                vec![(0, 0), (5, 5), (9, 1)],
                BLUE.stroke_width(2),
            ))?;
            area.draw(&Text::new(
                "a < b & \"c\" > 'd'",
                (3, 4),
                ("sans-serif", 12.4).into_font().color(&BLACK),
            ))?;
            area.draw(&Polygon::new(vec![(0, 0), (4, 0), (4, 4)], GREEN.filled()))?;
            area.draw(&Circle::new((6, 6), 2, RGBColor(1, 2, 255).stroke_width(1)))?;
            Ok(())
        });
        assert_eq!(
            svg,
            "<svg width=\"40\" height=\"30\" viewBox=\"0 0 40 30\" \
             xmlns=\"http://www.w3.org/2000/svg\">\n\
             <!-- a note -->\n\
             <rect x=\"1\" y=\"2\" width=\"10\" height=\"5\" opacity=\"0.5\" fill=\"#FF0000\" \
             stroke=\"none\"/>\n\
             <polyline fill=\"none\" opacity=\"1\" stroke=\"#0000FF\" stroke-width=\"2\" \
             points=\"0,0 5,5 9,1 \"/>\n\
             <text x=\"3\" y=\"4\" dy=\"0.76em\" text-anchor=\"start\" font-family=\"sans-serif\" \
             font-size=\"10\" opacity=\"1\" fill=\"#000000\">\n\
             a &lt; b &amp; &quot;c&quot; &gt; &apos;d&apos;\n\
             </text>\n\
             <polygon opacity=\"1\" fill=\"#00FF00\" points=\"0,0 4,0 4,4 \"/>\n\
             <circle cx=\"6\" cy=\"6\" r=\"2\" opacity=\"1\" fill=\"none\" stroke=\"#0102FF\" \
             stroke-width=\"1\"/>\n\
             </svg>\n"
        );
    }

    #[test]
    fn bold_and_turned_text_says_so_and_an_invisible_element_is_left_out() {
        let svg = drawn(|area| {
            let bold = ("serif", 12.4)
                .into_font()
                .style(FontStyle::Bold)
                .color(&RED);
            area.draw(&Text::new(
                "up",
                (5, 6),
                bold.transform(FontTransform::Rotate270),
            ))?;
            area.draw(&Rectangle::new([(0, 0), (3, 3)], WHITE.mix(0.0).filled()))?;
            Ok(())
        });
        assert!(
            svg.contains(
                "font-family=\"serif\" font-size=\"10\" opacity=\"1\" fill=\"#FF0000\" \
                 font-weight=\"bold\" transform=\"rotate(270, 5, 6)\">\nup\n</text>\n"
            ),
            "{svg}"
        );
        assert!(!svg.contains("<rect"), "{svg}");
    }

    /// Takes `room` bytes, then fails every write.
    struct Full {
        room: usize,
    }

    impl Write for Full {
        fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
            if self.room == 0 {
                return Err(io::Error::new(
                    io::ErrorKind::StorageFull,
                    "the disk is full",
                ));
            }
            let taken = buf.len().min(self.room);
            self.room -= taken;
            Ok(taken)
        }

        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn a_write_that_fails_is_reported_when_the_picture_is_finished() {
        for room in [0, 100, 20_000] {
            let mut full = Full { room };
            let drawn = draw_svg(&mut full, (1000, 1000), None, |area| {
                for x in 0..1000 {
                    area.draw(&Rectangle::new([(x, 0), (x + 1, 9)], BLUE.filled()))?;
                }
                Ok(())
            });
            match drawn {
                Err(PlotError::Write(error)) => {
                    assert_eq!(error.kind(), io::ErrorKind::StorageFull, "{room}: {error}");
                }
                other => panic!("with room for {room} bytes: {other:?}"),
            }
        }
    }
}
