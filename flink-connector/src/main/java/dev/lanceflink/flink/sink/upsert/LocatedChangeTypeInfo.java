package dev.lanceflink.flink.sink.upsert;

import static java.util.Objects.requireNonNull;

import org.apache.flink.api.common.serialization.SerializerConfig;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.table.types.logical.RowType;

/** Type information of {@link LocatedChange} for rows of {@code rowType}. */
public final class LocatedChangeTypeInfo extends TypeInformation<LocatedChange> {
    private static final long serialVersionUID = 1L;

    private final RowType rowType;

    public LocatedChangeTypeInfo(RowType rowType) {
        this.rowType = requireNonNull(rowType, "rowType is null");
    }

    @Override
    public boolean isBasicType() {
        return false;
    }

    @Override
    public boolean isTupleType() {
        return false;
    }

    @Override
    public int getArity() {
        return 1;
    }

    @Override
    public int getTotalFields() {
        return 1;
    }

    @Override
    public Class<LocatedChange> getTypeClass() {
        return LocatedChange.class;
    }

    @Override
    public boolean isKeyType() {
        return false;
    }

    @Override
    public TypeSerializer<LocatedChange> createSerializer(SerializerConfig config) {
        return new LocatedChangeSerializer(rowType);
    }

    @Override
    public String toString() {
        return "LocatedChange<" + rowType + ">";
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof LocatedChangeTypeInfo other && other.rowType.equals(rowType);
    }

    @Override
    public int hashCode() {
        return rowType.hashCode();
    }

    @Override
    public boolean canEqual(Object o) {
        return o instanceof LocatedChangeTypeInfo;
    }
}
