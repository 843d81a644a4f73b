//! The six fields of a tool's document, in the order every per-field array keeps them: the
//! five of the tool's own text, then its server's ([`Field`]), and the weight and length
//! normalisation of each ([`FieldWeights`]).

/// How many fields a document has.
pub(crate) const FIELDS: usize = 6;
/// How many of a document's fields are its own text (all but its server's).
pub(crate) const OWN_FIELDS: usize = 5;
/// The server's field, posted per server.
pub(crate) const SERVER: usize = Field::Server as usize;

/// The fields of a document, in the order of [`FieldWeights`].
#[derive(Debug, Clone, Copy)]
pub(crate) enum Field {
    Name = 0,
    Title = 1,
    Description = 2,
    ParameterName = 3,
    ParameterText = 4,
    Server = 5,
}

/// The weight and the length normalisation (`b`, 0 to 1) of each field.
#[derive(Debug, Clone, Copy, PartialEq)]
#[non_exhaustive]
pub struct FieldWeights {
    /// `(weight, b)` of: the tool's name, its title, its description, its parameters' names,
    /// their descriptions, and its server's name and instructions.
    pub fields: [(f32, f32); FIELDS],
}

impl Default for FieldWeights {
    /// Names over titles over descriptions; parameters and the server below them.
    fn default() -> Self {
        Self {
            fields: [
                (3.0, 0.3),
                (2.0, 0.3),
                (1.0, 0.75),
                (1.0, 0.5),
                (0.5, 0.75),
                (0.5, 0.75),
            ],
        }
    }
}
