//! The field numbers of the MIL messages an operation is made of (FORMAT.md §3), written once.
//!
//! Each message has a module of named field numbers, which the decoders match on, and an entry in
//! [`Message::fields`], which says what each field holds; [`validate`](super::validate) walks a
//! message by that table, and a test ties every entry to the owned prost structs of
//! [`read::proto`](crate::read::proto) (encode each field through prost, find it here under the
//! same number with the same wire type), so the two cannot drift apart.

/// Every field number declared here is below this (the decoders keep one slot per number).
pub(crate) const MAX_FIELD_NUMBER: u32 = 7;

/// What a field holds, as far as the wire format is concerned.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Kind {
    /// A varint scalar (`int32`, `int64`, `uint64`, `bool`, an enum).
    Varint,
    /// A `bytes` or `string` field (repeated or not: each occurrence is one value).
    Bytes,
    /// A nested message (repeated or not).
    Message(Message),
    /// `repeated` varint scalars: packed or one per occurrence.
    PackedVarint,
    /// `repeated float`: packed or one per occurrence.
    PackedFixed32,
    /// `repeated double`: packed or one per occurrence.
    PackedFixed64,
}

macro_rules! messages {
    ($(
        $(#[$doc:meta])*
        $message:ident in $module:ident {
            $( $(#[$field_doc:meta])* $field:ident = $number:literal: $kind:ident $(($inner:ident))?, )*
        }
    )*) => {
        /// The messages of an operation.
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        pub(crate) enum Message {
            $( $(#[$doc])* $message, )*
        }

        $(
            $(#[$doc])*
            #[allow(dead_code)]
            pub(crate) mod $module {
                $( $(#[$field_doc])* pub(crate) const $field: u32 = $number; )*
            }
        )*

        impl Message {
            /// Every message, for the tests.
            #[cfg(test)]
            pub(crate) const ALL: &'static [Message] = &[ $( Message::$message, )* ];

            /// The fields of the message: number and what it holds.
            #[cfg(test)]
            pub(crate) fn fields(self) -> &'static [(u32, Kind)] {
                match self {
                    $( Message::$message => &[
                        $( ($module::$field, Kind::$kind $((Message::$inner))?), )*
                    ], )*
                }
            }

            /// What field `number` of the message holds; `None` for a field it does not declare.
            #[inline]
            pub(crate) fn kind(self, number: u32) -> Option<Kind> {
                match (self, number) {
                    $( $( (Message::$message, $module::$field) => Some(Kind::$kind $((Message::$inner))?), )* )*
                    _ => None,
                }
            }

            /// The message's protobuf name.
            #[cfg(test)]
            pub(crate) fn name(self) -> &'static str {
                match self {
                    $( Message::$message => stringify!($message), )*
                }
            }
        }
    };
}

messages! {
    /// `MILSpec.Operation`.
    Operation in operation {
        /// `string type`.
        TYPE = 1: Bytes,
        /// `map<string, Argument> inputs`.
        INPUTS = 2: Message(ArgumentEntry),
        /// `repeated NamedValueType outputs`.
        OUTPUTS = 3: Message(NamedValueType),
        /// `repeated Block blocks`.
        BLOCKS = 4: Message(Block),
        /// `map<string, Value> attributes`.
        ATTRIBUTES = 5: Message(ValueEntry),
    }
    /// `MILSpec.Block`.
    Block in block {
        /// `repeated NamedValueType inputs`.
        INPUTS = 1: Message(NamedValueType),
        /// `repeated string outputs`.
        OUTPUTS = 2: Bytes,
        /// `repeated Operation operations`.
        OPERATIONS = 3: Message(Operation),
        /// `map<string, Value> attributes`.
        ATTRIBUTES = 4: Message(ValueEntry),
    }
    /// An entry of a `map<string, Argument>`.
    ArgumentEntry in argument_entry {
        /// The key.
        KEY = 1: Bytes,
        /// The value.
        VALUE = 2: Message(Argument),
    }
    /// An entry of a `map<string, Value>`.
    ValueEntry in value_entry {
        /// The key.
        KEY = 1: Bytes,
        /// The value.
        VALUE = 2: Message(Value),
    }
    /// `MILSpec.Argument`.
    Argument in argument {
        /// `repeated Binding arguments`.
        ARGUMENTS = 1: Message(Binding),
    }
    /// `MILSpec.Argument.Binding` (oneof `binding`).
    Binding in binding {
        /// `string name`.
        NAME = 1: Bytes,
        /// `Value value`.
        VALUE = 2: Message(Value),
    }
    /// `MILSpec.NamedValueType`.
    NamedValueType in named_value_type {
        /// `string name`.
        NAME = 1: Bytes,
        /// `ValueType type`.
        TYPE = 2: Message(ValueType),
    }
    /// `MILSpec.ValueType` (oneof `type`).
    ValueType in value_type {
        /// `TensorType tensorType`.
        TENSOR_TYPE = 1: Message(TensorType),
        /// `ListType listType`.
        LIST_TYPE = 2: Message(ListType),
        /// `TupleType tupleType`.
        TUPLE_TYPE = 3: Message(TupleType),
        /// `DictionaryType dictionaryType`.
        DICTIONARY_TYPE = 4: Message(DictionaryType),
        /// `StateType stateType`.
        STATE_TYPE = 5: Message(StateType),
    }
    /// `MILSpec.TensorType`.
    TensorType in tensor_type {
        /// `DataType dataType`.
        DATA_TYPE = 1: Varint,
        /// `int64 rank`.
        RANK = 2: Varint,
        /// `repeated Dimension dimensions`.
        DIMENSIONS = 3: Message(Dimension),
        /// `map<string, Value> attributes`.
        ATTRIBUTES = 4: Message(ValueEntry),
    }
    /// `MILSpec.TupleType`.
    TupleType in tuple_type {
        /// `repeated ValueType types`.
        TYPES = 1: Message(ValueType),
    }
    /// `MILSpec.ListType`.
    ListType in list_type {
        /// `ValueType type`.
        TYPE = 1: Message(ValueType),
        /// `Dimension length`.
        LENGTH = 2: Message(Dimension),
    }
    /// `MILSpec.DictionaryType`.
    DictionaryType in dictionary_type {
        /// `ValueType keyType`.
        KEY_TYPE = 1: Message(ValueType),
        /// `ValueType valueType`.
        VALUE_TYPE = 2: Message(ValueType),
    }
    /// `MILSpec.StateType`.
    StateType in state_type {
        /// `ValueType wrappedType`.
        WRAPPED_TYPE = 1: Message(ValueType),
    }
    /// `MILSpec.Dimension` (oneof `dimension`).
    Dimension in dimension {
        /// `ConstantDimension constant`.
        CONSTANT = 1: Message(ConstantDimension),
        /// `UnknownDimension unknown`.
        UNKNOWN = 2: Message(UnknownDimension),
    }
    /// `MILSpec.Dimension.ConstantDimension`.
    ConstantDimension in constant_dimension {
        /// `uint64 size`.
        SIZE = 1: Varint,
    }
    /// `MILSpec.Dimension.UnknownDimension`.
    UnknownDimension in unknown_dimension {
        /// `bool variadic`.
        VARIADIC = 1: Varint,
    }
    /// `MILSpec.Value` (oneof `value`: 3 or 5).
    Value in value {
        /// `string docString`.
        DOC_STRING = 1: Bytes,
        /// `ValueType type`.
        TYPE = 2: Message(ValueType),
        /// `ImmediateValue immediateValue`.
        IMMEDIATE_VALUE = 3: Message(ImmediateValue),
        /// `BlobFileValue blobFileValue`.
        BLOB_FILE_VALUE = 5: Message(BlobFileValue),
    }
    /// `MILSpec.Value.ImmediateValue` (oneof `value`).
    ImmediateValue in immediate_value {
        /// `TensorValue tensor`.
        TENSOR = 1: Message(TensorValue),
        /// `TupleValue tuple`.
        TUPLE = 2: Message(TupleValue),
        /// `ListValue list`.
        LIST = 3: Message(ListValue),
        /// `DictionaryValue dictionary`.
        DICTIONARY = 4: Message(DictionaryValue),
    }
    /// `MILSpec.Value.BlobFileValue`.
    BlobFileValue in blob_file_value {
        /// `string fileName`.
        FILE_NAME = 1: Bytes,
        /// `uint64 offset`.
        OFFSET = 2: Varint,
    }
    /// `MILSpec.TensorValue` (oneof `value`).
    TensorValue in tensor_value {
        /// `RepeatedFloats floats`.
        FLOATS = 1: Message(RepeatedFloats),
        /// `RepeatedInts ints`.
        INTS = 2: Message(RepeatedInts),
        /// `RepeatedBools bools`.
        BOOLS = 3: Message(RepeatedBools),
        /// `RepeatedStrings strings`.
        STRINGS = 4: Message(RepeatedStrings),
        /// `RepeatedLongInts longInts`.
        LONG_INTS = 5: Message(RepeatedLongInts),
        /// `RepeatedDoubles doubles`.
        DOUBLES = 6: Message(RepeatedDoubles),
        /// `RepeatedBytes bytes`.
        BYTES = 7: Message(RepeatedBytes),
    }
    /// `MILSpec.TensorValue.RepeatedFloats`.
    RepeatedFloats in repeated_floats {
        /// `repeated float values`.
        VALUES = 1: PackedFixed32,
    }
    /// `MILSpec.TensorValue.RepeatedDoubles`.
    RepeatedDoubles in repeated_doubles {
        /// `repeated double values`.
        VALUES = 1: PackedFixed64,
    }
    /// `MILSpec.TensorValue.RepeatedInts`.
    RepeatedInts in repeated_ints {
        /// `repeated int32 values`.
        VALUES = 1: PackedVarint,
    }
    /// `MILSpec.TensorValue.RepeatedLongInts`.
    RepeatedLongInts in repeated_long_ints {
        /// `repeated int64 values`.
        VALUES = 1: PackedVarint,
    }
    /// `MILSpec.TensorValue.RepeatedBools`.
    RepeatedBools in repeated_bools {
        /// `repeated bool values`.
        VALUES = 1: PackedVarint,
    }
    /// `MILSpec.TensorValue.RepeatedStrings`.
    RepeatedStrings in repeated_strings {
        /// `repeated string values`.
        VALUES = 1: Bytes,
    }
    /// `MILSpec.TensorValue.RepeatedBytes`.
    RepeatedBytes in repeated_bytes {
        /// `bytes values`.
        VALUES = 1: Bytes,
    }
    /// `MILSpec.TupleValue`.
    TupleValue in tuple_value {
        /// `repeated Value values`.
        VALUES = 1: Message(Value),
    }
    /// `MILSpec.ListValue`.
    ListValue in list_value {
        /// `repeated Value values`.
        VALUES = 1: Message(Value),
    }
    /// `MILSpec.DictionaryValue`.
    DictionaryValue in dictionary_value {
        /// `repeated KeyValuePair values`.
        VALUES = 1: Message(KeyValuePair),
    }
    /// `MILSpec.DictionaryValue.KeyValuePair`.
    KeyValuePair in key_value_pair {
        /// `Value key`.
        KEY = 1: Message(Value),
        /// `Value value`.
        VALUE = 2: Message(Value),
    }
}
