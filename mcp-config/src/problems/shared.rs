//! [`Shared`]: another crate's error kept in a problem, cheap to clone.

use std::error::Error;
use std::fmt;
use std::sync::Arc;

/// An error of another crate's, shared: cheap to clone; two are equal when they are the same
/// error (not merely alike).
pub struct Shared<E: ?Sized>(Arc<E>);

impl<E: ?Sized> Shared<E> {
    /// Shares `error`.
    pub fn new(error: Arc<E>) -> Self {
        Self(error)
    }

    /// The error.
    pub fn get(&self) -> &E {
        &self.0
    }
}

impl<E: ?Sized> Clone for Shared<E> {
    fn clone(&self) -> Self {
        Self(Arc::clone(&self.0))
    }
}

impl<E: ?Sized> PartialEq for Shared<E> {
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
}

impl<E: ?Sized> Eq for Shared<E> {}

impl<E: fmt::Debug + ?Sized> fmt::Debug for Shared<E> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&*self.0, f)
    }
}

impl<E: fmt::Display + ?Sized> fmt::Display for Shared<E> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&*self.0, f)
    }
}

impl<E: Error + ?Sized> Error for Shared<E> {
    fn source(&self) -> Option<&(dyn Error + 'static)> {
        self.0.source()
    }
}
