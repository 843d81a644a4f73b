#![doc = include_str!("../README.md")]

mod lock;
mod write;

pub use lock::{FileLock, LockError};
pub use write::{
    DIR_MODE, FILE_MODE, create_new_file, create_private_dirs, ensure_private_dir, final_target,
    write_atomically, write_new, write_rebuildable,
};
