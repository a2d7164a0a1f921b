/**
 * The {@code vigil.io/v1alpha1} custom resources. Field initialisers mirror the CRD defaults
 * ({@code @Default}) so desired state computed from an object built in Java equals what the operator
 * sees after the API server defaulted it; a test keeps the two in step.
 */
package io.vigil.operator.api.v1alpha1;
