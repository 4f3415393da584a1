//! An instance file's JSON text written from arrays (the Python package's
//! `cma_instance` and `spd_instance`), for the family's reader to check as
//! it checks a file.
//!
//! Arrays have no file size to check, and a numpy view can declare far more
//! values than memory holds (a broadcast `10⁶ × 10⁴` view takes no memory).
//! The text is therefore held to the limit of an instance file
//! ([`MAX_INPUT_BYTES`]): the arrays' shapes are checked against it before
//! anything is allocated (at two bytes a number, the least JSON needs), the
//! text is checked against it as it grows, and it grows by fallible
//! allocation, so what memory cannot hold is an error naming the size, not
//! an abort. Numbers are written as `serde_json` writes them; what JSON
//! cannot hold (`NaN`, infinities) is left to each field's writer.

use crate::error::{Error, Result};
use crate::io::MAX_INPUT_BYTES;
use serde_json::{Number, Value};

/// The fewest bytes a number takes in a JSON array (`0,`).
const MIN_NUMBER_BYTES: u64 = 2;
/// The most bytes one `f64` takes in JSON, with its separator
/// (`-2.2250738585072014e-308,`).
const MAX_NUMBER_BYTES: usize = 25;

/// A host's array (a numpy array or view): its shape and its numbers in
/// row-major order, read as they are written (nothing is copied).
pub struct HostArray<'a> {
    /// Its shape: one entry for a vector, two for a matrix.
    pub shape: Vec<usize>,
    /// Its numbers, row-major.
    pub cells: Box<dyn Iterator<Item = f64> + 'a>,
}

impl<'a> HostArray<'a> {
    /// An array of `shape` whose numbers `cells` gives.
    pub fn new(shape: Vec<usize>, cells: impl Iterator<Item = f64> + 'a) -> Self {
        HostArray {
            shape,
            cells: Box::new(cells),
        }
    }

    /// The numbers of a slice, shaped `shape`.
    pub fn of_slice(shape: Vec<usize>, data: &'a [f64]) -> Self {
        HostArray::new(shape, data.iter().copied())
    }

    /// `(rows, columns)` of a matrix, `(length, 1)` of a vector.
    pub fn dims(&self) -> (usize, usize) {
        (
            self.shape.first().copied().unwrap_or(0),
            self.shape.get(1).copied().unwrap_or(1),
        )
    }
}

/// One array's name and shape, for [`FileText::new`]'s size check.
pub type Shape<'a> = (&'a str, &'a [usize]);

/// A whole number `>= 0` that fits a `u64` as a JSON integer, another
/// finite number as given (for the reader to refuse, naming its field),
/// `None` for what JSON cannot hold.
pub fn whole_or_as_given(x: f64) -> Option<Number> {
    if x.fract() == 0.0 && (0.0..18_446_744_073_709_551_616.0).contains(&x) {
        Some(Number::from(x as u64))
    } else {
        Number::from_f64(x)
    }
}

/// An instance file's JSON object, written field by field.
#[derive(Debug)]
pub struct FileText {
    text: Vec<u8>,
    file: String,
}

impl FileText {
    /// A text for `file` (errors name it) holding arrays of these shapes;
    /// refused before anything is allocated when the numbers alone would
    /// pass the limit of an instance file.
    pub fn new(file: &str, arrays: &[Shape<'_>]) -> Result<Self> {
        let mut least = 0u64;
        for &(name, shape) in arrays {
            let cells = shape
                .iter()
                .try_fold(1u64, |n, &d| n.checked_mul(d as u64))
                .unwrap_or(u64::MAX);
            least = least.saturating_add(cells.saturating_mul(MIN_NUMBER_BYTES));
            if least > MAX_INPUT_BYTES {
                let dims: Vec<String> = shape.iter().map(usize::to_string).collect();
                return Err(Error::input(
                    file,
                    name,
                    format!(
                        "{} values: the arrays need at least {least} bytes of JSON, more \
                         than the {MAX_INPUT_BYTES} an instance file may have",
                        dims.join(" × "),
                    ),
                ));
            }
        }
        Ok(FileText {
            text: b"{".to_vec(),
            file: file.to_string(),
        })
    }

    /// Writes `"key": value` for a small value (a count, a name, a short
    /// vector).
    pub fn field(&mut self, key: &str, value: &Value) -> Result<()> {
        let part = serde_json::to_vec(value).map_err(|e| Error::Internal(e.to_string()))?;
        self.key(key, part.len())?;
        self.text.extend_from_slice(&part);
        self.check_size(key)
    }

    /// Writes `"key": [[…], …]`, the rows of the matrix `array`;
    /// `cell(x, i, j)` gives what to write for each number (`None`: `null`)
    /// or the error of a value the field cannot hold.
    pub fn matrix(
        &mut self,
        key: &str,
        array: HostArray<'_>,
        cell: impl Fn(f64, usize, usize) -> Result<Option<Number>>,
    ) -> Result<()> {
        let (rows, cols) = array.dims();
        let mut cells = array.cells;
        self.key(key, 1)?;
        self.text.push(b'[');
        for i in 0..rows {
            self.grow(cols.saturating_mul(MAX_NUMBER_BYTES).saturating_add(3), key)?;
            if i > 0 {
                self.text.push(b',');
            }
            self.text.push(b'[');
            for j in 0..cols {
                if j > 0 {
                    self.text.push(b',');
                }
                let x = cells.next().unwrap_or(f64::NAN);
                self.number(cell(x, i, j)?);
            }
            self.text.push(b']');
            self.check_size(key)?;
        }
        self.text.push(b']');
        Ok(())
    }

    /// Writes `"key": […]`, the numbers of the vector `array`, each as
    /// `cell(x, i)` says (`None`: `null`; or the error of a value the
    /// field cannot hold).
    pub fn vector(
        &mut self,
        key: &str,
        array: HostArray<'_>,
        cell: impl Fn(f64, usize) -> Result<Option<Number>>,
    ) -> Result<()> {
        self.key(key, 1)?;
        self.text.push(b'[');
        for (i, x) in array.cells.enumerate() {
            self.grow(MAX_NUMBER_BYTES.saturating_add(1), key)?;
            if i > 0 {
                self.text.push(b',');
            }
            self.number(cell(x, i)?);
            if i % 4096 == 0 {
                self.check_size(key)?;
            }
        }
        self.text.push(b']');
        self.check_size(key)
    }

    /// The file's text.
    pub fn finish(mut self) -> Result<String> {
        self.grow(1, "")?;
        self.text.push(b'}');
        String::from_utf8(self.text).map_err(|e| Error::Internal(e.to_string()))
    }

    /// `,"key":` (room for `more` bytes after it).
    fn key(&mut self, key: &str, more: usize) -> Result<()> {
        let name = serde_json::to_vec(key).map_err(|e| Error::Internal(e.to_string()))?;
        self.grow(name.len().saturating_add(more).saturating_add(2), key)?;
        if self.text.len() > 1 {
            self.text.push(b',');
        }
        self.text.extend_from_slice(&name);
        self.text.push(b':');
        Ok(())
    }

    fn number(&mut self, x: Option<Number>) {
        match x {
            // Writing into a Vec whose room was reserved cannot fail.
            Some(n) => {
                let _ = serde_json::to_writer(&mut self.text, &n);
            }
            None => self.text.extend_from_slice(b"null"),
        }
    }

    /// Room for `more` bytes, allocated fallibly.
    fn grow(&mut self, more: usize, key: &str) -> Result<()> {
        let free = self.text.capacity() - self.text.len();
        if free >= more {
            return Ok(());
        }
        let step = more.max(self.text.len() / 2);
        self.text.try_reserve_exact(step).map_err(|_| {
            Error::input(
                &self.file,
                key,
                format!(
                    "cannot allocate {} bytes for the instance's JSON (out of memory)",
                    self.text.len().saturating_add(step)
                ),
            )
        })
    }

    fn check_size(&self, key: &str) -> Result<()> {
        if self.text.len() as u64 > MAX_INPUT_BYTES {
            return Err(Error::input(
                &self.file,
                key,
                format!(
                    "the instance's JSON passes {MAX_INPUT_BYTES} bytes, the most an instance \
                     file may have"
                ),
            ));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn plain(x: f64, _: usize, _: usize) -> Result<Option<Number>> {
        Ok(Number::from_f64(x))
    }

    #[test]
    fn writes_the_fields_as_json() {
        let mut t = FileText::new("<arrays>", &[("m", &[2, 2])]).unwrap();
        t.field("problem", &json!("cma")).unwrap();
        let cells = [1.0, 2.5, f64::INFINITY, 0.0];
        t.matrix("m", HostArray::of_slice(vec![2, 2], &cells), plain)
            .unwrap();
        let v = [3.0, 1e18, 1.5];
        t.vector("v", HostArray::of_slice(vec![3], &v), |x, _| {
            Ok(whole_or_as_given(x))
        })
        .unwrap();
        let v: Value = serde_json::from_str(&t.finish().unwrap()).unwrap();
        assert_eq!(
            v,
            json!({"problem": "cma", "m": [[1.0, 2.5], [null, 0.0]],
                   "v": [3, 1_000_000_000_000_000_000u64, 1.5]})
        );
        let mut t = FileText::new("<arrays>", &[("m", &[0, 3])]).unwrap();
        t.matrix("m", HostArray::of_slice(vec![0, 3], &[]), plain)
            .unwrap();
        assert_eq!(t.finish().unwrap(), r#"{"m":[]}"#);
    }

    #[test]
    fn shapes_beyond_a_file_are_refused_before_allocating() {
        let e = FileText::new("<arrays>", &[("delay", &[1_000_000, 10_000])]).unwrap_err();
        let msg = e.to_string();
        assert!(
            msg.starts_with("<arrays>: delay: 1000000 × 10000 values"),
            "{msg}"
        );
        assert!(msg.contains(&MAX_INPUT_BYTES.to_string()), "{msg}");
        // Shapes whose product overflows are refused too.
        assert!(FileText::new("f", &[("a", &[usize::MAX, 3])]).is_err());
        assert!(FileText::new("f", &[("a", &[1000, 1000])]).is_ok());
    }

    #[test]
    fn a_cell_the_field_cannot_hold_is_its_error() {
        let mut t = FileText::new("<arrays>", &[("delay", &[1, 2])]).unwrap();
        let cells = [1.0, f64::NAN];
        let e = t
            .matrix(
                "delay",
                HostArray::of_slice(vec![1, 2], &cells),
                |x, i, j| {
                    if x.is_finite() {
                        Ok(Number::from_f64(x))
                    } else {
                        Err(Error::input("<arrays>", format!("delay[{i}][{j}]"), "bad"))
                    }
                },
            )
            .unwrap_err();
        assert_eq!(e.to_string(), "<arrays>: delay[0][1]: bad");
    }
}
